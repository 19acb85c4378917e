import Foundation
import GronaMockJSON

/// An event the SDK sent and the mock stored (contract §7), typed by its event type, with the server's
/// fields (`sequence`, `receivedAt`, `correctedTimestamp`). `json` keeps the event exactly as sent, for
/// anything not typed here.
public struct GronaMockEvent: Sendable, Hashable, Codable {
    /// Arrival order across the server; the inspection API's cursor.
    public let sequence: Int64
    public let workspaceKey: String
    public let installID: String
    /// When the server received it, on the mock's clock (Unix epoch milliseconds).
    public let receivedAt: Int64
    /// `timestamp + (receivedAt - sentAt)`: the event's time on the server's clock.
    public let correctedTimestamp: Int64
    public let eventID: String
    /// The event's time on the device (Unix epoch milliseconds).
    public let timestamp: Int64
    public let sessionID: String?
    public let customerID: String?
    public let demo: Bool?
    public let configRevision: Int64?
    /// What the event says, by type.
    public let details: Details
    /// The event as the SDK sent it.
    public let json: Data

    /// The event types of contract §7, with what each carries.
    public enum Details: Sendable, Hashable {
        case eligible(GronaMockPlacementContext)
        case anchorVisible(GronaMockPlacementContext)
        case exposure(GronaMockPlacementContext)
        case served(GronaMockPlacementContext)
        case action(GronaMockPlacementContext, GronaMockAction)
        case dismiss(GronaMockPlacementContext)
        case purchase(GronaMockPurchase)
    }

    /// The type's wire name: `exposure`, `anchor_visible`, `purchase`, ...
    public var type: String {
        switch details {
        case .eligible: "eligible"
        case .anchorVisible: "anchor_visible"
        case .exposure: "exposure"
        case .served: "served"
        case .action: "action"
        case .dismiss: "dismiss"
        case .purchase: "purchase"
        }
    }

    /// The placement context of a placement event; nil for a purchase.
    public var placement: GronaMockPlacementContext? {
        switch details {
        case .eligible(let context), .anchorVisible(let context), .exposure(let context), .served(let context),
            .action(let context, _), .dismiss(let context):
            context
        case .purchase:
            nil
        }
    }

    private enum Keys: String, CodingKey {
        case sequence, workspaceKey, installID, receivedAt, correctedTimestamp, eventID, type, timestamp, sessionID
        case customerID, demo, configRevision, action
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        sequence = try container.decode(Int64.self, forKey: .sequence)
        workspaceKey = try container.decode(String.self, forKey: .workspaceKey)
        installID = try container.decode(String.self, forKey: .installID)
        receivedAt = try container.decode(Int64.self, forKey: .receivedAt)
        correctedTimestamp = try container.decode(Int64.self, forKey: .correctedTimestamp)
        eventID = try container.decode(String.self, forKey: .eventID)
        timestamp = try container.decode(Int64.self, forKey: .timestamp)
        sessionID = try container.decodeIfPresent(String.self, forKey: .sessionID)
        customerID = try container.decodeIfPresent(String.self, forKey: .customerID)
        demo = try container.decodeIfPresent(Bool.self, forKey: .demo)
        configRevision = try container.decodeIfPresent(Int64.self, forKey: .configRevision)
        json = Data()
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "purchase": details = .purchase(try GronaMockPurchase(from: decoder))
        case "eligible": details = .eligible(try GronaMockPlacementContext(from: decoder))
        case "anchor_visible": details = .anchorVisible(try GronaMockPlacementContext(from: decoder))
        case "exposure": details = .exposure(try GronaMockPlacementContext(from: decoder))
        case "served": details = .served(try GronaMockPlacementContext(from: decoder))
        case "dismiss": details = .dismiss(try GronaMockPlacementContext(from: decoder))
        case "action":
            details = .action(
                try GronaMockPlacementContext(from: decoder),
                try container.decode(GronaMockAction.self, forKey: .action))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown event type \(type)")
        }
    }

    /// Writes the event in the inspection API's shape (the server's fields and the event's typed fields;
    /// fields not typed here are in `json`), so a test can save what it saw and decode it again.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(workspaceKey, forKey: .workspaceKey)
        try container.encode(installID, forKey: .installID)
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encode(correctedTimestamp, forKey: .correctedTimestamp)
        try container.encode(eventID, forKey: .eventID)
        try container.encode(type, forKey: .type)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(sessionID, forKey: .sessionID)
        try container.encodeIfPresent(customerID, forKey: .customerID)
        try container.encodeIfPresent(demo, forKey: .demo)
        try container.encodeIfPresent(configRevision, forKey: .configRevision)
        switch details {
        case .purchase(let purchase): try purchase.encode(to: encoder)
        case .action(let context, let action):
            try context.encode(to: encoder)
            try container.encode(action, forKey: .action)
        case .eligible(let context), .anchorVisible(let context), .exposure(let context), .served(let context),
            .dismiss(let context):
            try context.encode(to: encoder)
        }
    }

    private init(decoded: GronaMockEvent, json: Data) {
        sequence = decoded.sequence
        workspaceKey = decoded.workspaceKey
        installID = decoded.installID
        receivedAt = decoded.receivedAt
        correctedTimestamp = decoded.correctedTimestamp
        eventID = decoded.eventID
        timestamp = decoded.timestamp
        sessionID = decoded.sessionID
        customerID = decoded.customerID
        demo = decoded.demo
        configRevision = decoded.configRevision
        details = decoded.details
        self.json = json
    }

    /// Decodes the inspection API's `events` list; an event that does not decode is an error naming it.
    static func decodeList(_ value: JSONValue?) throws -> [GronaMockEvent] {
        let decoder = JSONDecoder()
        return try (value?.arrayValue ?? []).map { event in
            let bytes = Data(event.serialized())
            do {
                return GronaMockEvent(decoded: try decoder.decode(GronaMockEvent.self, from: bytes), json: bytes)
            } catch {
                let id = event["eventID"]?.stringValue ?? "?"
                throw GronaMockTestError("event \(id) does not decode as a contract §7 event: \(error)")
            }
        }
    }
}

/// Where a placement event happened and what it showed (contract §7).
public struct GronaMockPlacementContext: Sendable, Hashable, Codable {
    public struct Screen: Sendable, Hashable, Codable {
        public let type: String
        public let id: String?
        public let name: String?
    }

    public let placement: String
    public let screen: Screen
    public let visitID: String
    public let campaignID: String?
    public let variantID: String?
    /// `treatment`, `control` or `holdout`.
    public let arm: String?
    /// The line's key, required on `cart_line`.
    public let key: String?
}

/// What an `action` event did.
public struct GronaMockAction: Sendable, Hashable, Codable {
    public struct Line: Sendable, Hashable, Codable {
        public let productID: String
        public let quantity: Int
    }

    /// `add`, `add_all`, `replace` or `navigate`.
    public let kind: String
    /// `accepted`, `partial` or `rejected`.
    public let result: String?
    public let lines: [Line]?
    public let replacedProductID: String?
}

/// A `purchase` event: the order and the treatments its backend says it applied.
public struct GronaMockPurchase: Sendable, Hashable, Codable {
    public struct Treatment: Sendable, Hashable, Codable {
        public let campaignID: String
        public let variantID: String
        public let placement: String
        public let type: String
        public let valueMilli: Int64
    }

    public let orderID: String
    public let totalMinor: Int64
    public let currency: String?
    public let productIDs: [String]?
    public let treatments: [Treatment]?
}

/// An event the mock refused, with the field and the reason.
public struct GronaMockRejectedEvent: Sendable, Hashable {
    public let eventID: String?
    /// The event's position in its batch.
    public let index: Int
    public let field: String
    public let reason: String

    init(_ value: JSONValue) {
        eventID = value["eventID"]?.stringValue
        index = Int(value["index"]?.int64Value ?? -1)
        field = value["field"]?.stringValue ?? ""
        reason = value["reason"]?.stringValue ?? ""
    }
}

/// Which stored events to read or wait for; every field set must match.
public struct GronaMockEventFilter: Sendable, Hashable, CustomStringConvertible {
    /// An event type's wire name (`exposure`, `purchase`, ...).
    public var type: String?
    public var campaignID: String?
    public var variantID: String?
    public var arm: String?
    public var placement: String?
    public var installID: String?
    public var customerID: String?
    public var visitID: String?

    public init(
        type: String? = nil, campaignID: String? = nil, variantID: String? = nil, arm: String? = nil,
        placement: String? = nil, installID: String? = nil, customerID: String? = nil, visitID: String? = nil
    ) {
        self.type = type
        self.campaignID = campaignID
        self.variantID = variantID
        self.arm = arm
        self.placement = placement
        self.installID = installID
        self.customerID = customerID
        self.visitID = visitID
    }

    func queryItems(workspace: String) -> [(String, String)] {
        let fields: [(String, String?)] = [
            ("workspace", workspace), ("type", type), ("campaignID", campaignID), ("variantID", variantID),
            ("arm", arm), ("placement", placement), ("installID", installID), ("customerID", customerID),
            ("visitID", visitID),
        ]
        return fields.compactMap { name, value in value.map { (name, $0) } }
    }

    public var description: String {
        let set = queryItems(workspace: "").dropFirst().map { "\($0.0)=\($0.1)" }
        return set.isEmpty ? "(any)" : set.joined(separator: " ")
    }
}
