import Foundation

// The inspection API's value types (docs/openapi.yaml, `/_mock/events`), shared with the in-process test kit
// (`GronaMockTesting` names them `GronaMockEvent`, `GronaMockPlacementContext`, ...), so that a helper written
// for one works with the other.
extension GronaMockClient {
    /// An event the SDK sent and the mock stored (contract §7), typed by its event type, with the server's
    /// fields (`sequence`, `receivedAt`, `correctedTimestamp`). `json` keeps the event exactly as sent, for
    /// anything not typed here.
    public struct Event: Sendable, Hashable, Codable {
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
            case eligible(PlacementContext)
            case anchorVisible(PlacementContext)
            case exposure(PlacementContext)
            case served(PlacementContext)
            case action(PlacementContext, Action)
            case dismiss(PlacementContext)
            case purchase(Purchase)
            /// A type this client does not know (from a newer server or SDK), kept by its wire name; the event's
            /// fields are in `json`.
            case other(String)
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
            case .other(let name): name
            }
        }

        /// The placement context of a placement event; nil for a purchase.
        public var placement: PlacementContext? {
            switch details {
            case .eligible(let context), .anchorVisible(let context), .exposure(let context), .served(let context),
                .action(let context, _), .dismiss(let context):
                context
            case .purchase, .other:
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
            case "purchase": details = .purchase(try Purchase(from: decoder))
            case "eligible": details = .eligible(try PlacementContext(from: decoder))
            case "anchor_visible": details = .anchorVisible(try PlacementContext(from: decoder))
            case "exposure": details = .exposure(try PlacementContext(from: decoder))
            case "served": details = .served(try PlacementContext(from: decoder))
            case "dismiss": details = .dismiss(try PlacementContext(from: decoder))
            case "action":
                details = .action(
                    try PlacementContext(from: decoder),
                    try container.decode(Action.self, forKey: .action))
            default: details = .other(type)
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
            case .other:
                break
            }
        }

        private init(decoded: Event, json: Data) {
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

        /// Decodes one event in the inspection API's shape, keeping its bytes as `json`.
        package static func decode(_ bytes: Data) throws -> Event {
            Event(decoded: try JSONDecoder().decode(Event.self, from: bytes), json: bytes)
        }

    }

    /// Where a placement event happened and what it showed (contract §7).
    public struct PlacementContext: Sendable, Hashable, Codable {
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
    public struct Action: Sendable, Hashable, Codable {
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
    public struct Purchase: Sendable, Hashable, Codable {
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
    public struct RejectedEvent: Sendable, Hashable, Decodable {
        public let eventID: String?
        /// The event's position in its batch.
        public let index: Int
        public let field: String
        public let reason: String

        package init(eventID: String?, index: Int, field: String, reason: String) {
            self.eventID = eventID
            self.index = index
            self.field = field
            self.reason = reason
        }
    }
}
