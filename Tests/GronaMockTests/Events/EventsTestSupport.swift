import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport

/// Batches for `POST /v1/mobile/events` and readers for its answers and for `/_mock/events`, shared by the
/// events tests.
enum EventsAPI {
    /// The device's `sentAt`; the tests freeze the server's clock at `receivedAt`, 2.5 s later, so the
    /// skew correction of contract §7 has a known value to check.
    static let sentAt: Int64 = 1_764_478_800_123
    static let receivedAt: Int64 = sentAt + 2_500
    static let timestamp: Int64 = sentAt - 1_122

    static func envelope(
        _ events: [JSONValue], workspaceKey: String = "shop", installID: String = "install-1", sentAt: Int64 = sentAt
    ) -> JSONValue {
        .object([
            "workspaceKey": .string(workspaceKey), "installID": .string(installID),
            "sdk": ["platform": "ios", "version": "1.4.0"], "app": ["id": "com.example.shop", "version": "5.2.0"],
            "sentAt": .number(JSONNumber(sentAt)), "events": .array(events),
        ])
    }

    /// A POST of `body` with exact headers (nil leaves a header out).
    static func request(
        _ body: [UInt8], contentType: String? = "application/json", encoding: String? = nil,
        target: String = "/v1/mobile/events"
    ) -> [UInt8] {
        var head = "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        if let encoding { head += "Content-Encoding: \(encoding)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    static func post(
        _ port: Int, _ body: [UInt8], contentType: String? = "application/json", encoding: String? = nil
    ) throws -> RawClient.Response {
        let client = try RawClient(port: port)
        try client.send(request(body, contentType: contentType, encoding: encoding))
        return try client.readResponse()
    }

    /// Posts a batch and returns the parsed answer (any status: callers check it).
    static func post(
        _ port: Int, events: [JSONValue], installID: String = "install-1", sentAt: Int64 = sentAt
    ) throws -> (status: Int, body: JSONValue) {
        let body = envelope(events, installID: installID, sentAt: sentAt).serialized()
        let response = try post(port, body)
        return (response.status, try JSONParser().parse(response.body))
    }

    static func get(_ port: Int, _ target: String, method: String = "GET") throws -> RawClient.Response {
        try fetch(port, "\(method) \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
    }

    static func json(_ port: Int, _ target: String, method: String = "GET") throws -> (status: Int, body: JSONValue) {
        let response = try get(port, target, method: method)
        return (response.status, try JSONParser().parse(response.body))
    }

    /// One page of `GET /_mock/events?<query>`: its events and `nextCursor`.
    static func listed(_ port: Int, _ query: String) throws -> (events: [JSONValue], nextCursor: String?) {
        let (_, body) = try json(port, "/_mock/events?\(query)")
        return (body["events"]?.arrayValue ?? [], body["nextCursor"]?.stringValue)
    }

    /// Every stored event of the workspace, oldest first.
    static func stored(_ port: Int, workspace: String = "shop") throws -> [JSONValue] {
        try listed(port, "workspace=\(workspace)&limit=1000").events
    }

    static func rejected(_ port: Int, workspace: String = "shop") throws -> [JSONValue] {
        let (_, body) = try json(port, "/_mock/events/rejected?workspace=\(workspace)&limit=1000")
        return body["events"]?.arrayValue ?? []
    }

    static func eventIDs(_ events: [JSONValue]) -> [String] {
        events.map { $0["eventID"]?.stringValue ?? "?" }
    }

    /// `error.code` of an error body, or nil when the body is not the contract's error shape.
    static func errorCode(_ response: RawClient.Response) -> String? {
        (try? JSONParser().parse(response.body))?["error"]?["code"]?.stringValue
    }

    static func errorMessage(_ response: RawClient.Response) -> String {
        (try? JSONParser().parse(response.body))?["error"]?["message"]?.stringValue ?? ""
    }
}

/// Valid events of every type, built on the fixture workspace `shop` (campaigns home-hero on home_top,
/// checkout-10-off on checkout_above_pay).
enum SampleEvents {
    static func placementEvent(
        _ type: String, id: String, placement: String = "home_top", screen: JSONValue = ["type": "home"],
        key: JSONValue = .null, campaignID: String = "home-hero", variantID: String = "banner",
        arm: String = "treatment", timestamp: Int64 = EventsAPI.timestamp, demo: Bool = false,
        extra: [(String, JSONValue)] = []
    ) -> JSONValue {
        var object: JSONObject = [
            "eventID": .string(id), "type": .string(type), "timestamp": .number(JSONNumber(timestamp)),
            "sessionID": "s-1", "customerID": .null, "demo": .bool(demo), "configRevision": 3,
            "placement": .string(placement), "screen": screen, "key": key, "visitID": "v-77",
            "campaignID": .string(campaignID), "variantID": .string(variantID), "arm": .string(arm),
        ]
        for (name, value) in extra { object.set(name, value) }
        return .object(object)
    }

    static func treatment(
        campaignID: String = "checkout-10-off", variantID: String = "ten-off", type: String = "percent_off",
        valueMilli: Int64 = 10_000
    ) -> JSONValue {
        .object([
            "campaignID": .string(campaignID), "variantID": .string(variantID), "placement": "checkout_above_pay",
            "type": .string(type), "valueMilli": .number(JSONNumber(valueMilli)),
        ])
    }

    static func purchase(
        id: String, totalMinor: Int64 = 4_999, treatments: [JSONValue] = [treatment()],
        timestamp: Int64 = EventsAPI.timestamp, demo: Bool = false
    ) -> JSONValue {
        .object([
            "eventID": .string(id), "type": "purchase", "timestamp": .number(JSONNumber(timestamp)),
            "sessionID": "s-1", "customerID": "cust_123", "demo": .bool(demo), "orderID": .string("order-\(id)"),
            "totalMinor": .number(JSONNumber(totalMinor)), "currency": "EUR", "productIDs": ["sku-1", "sku-2"],
            "treatments": .array(treatments),
        ])
    }

    static func addAction(lines: JSONValue = [["productID": "sku-1", "quantity": 2]]) -> JSONValue {
        ["kind": "add", "lines": lines, "result": "accepted"]
    }
}
