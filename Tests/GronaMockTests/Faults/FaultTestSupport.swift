import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `/_mock/faults` API and one ordinary request per Grona endpoint, shared by the fault tests.
enum FaultAPI {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func post(_ target: String, _ body: String) -> String {
        "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
    }

    /// Adds a rule and returns it as the server answered (201 with its id), or throws with the answer.
    @discardableResult
    static func add(_ port: Int, _ rule: String) throws -> JSONValue {
        let response = try fetch(port, post("/_mock/faults", rule))
        guard response.status == 201 else {
            throw Failure(description: "adding \(rule) answered \(response.status): \(response.text)")
        }
        return try JSONParser().parse(response.body)
    }

    /// `GET /_mock/faults`: the rules as listed.
    static func rules(_ port: Int) throws -> [JSONValue] {
        let response = try fetch(port, "GET /_mock/faults HTTP/1.1\r\nHost: x\r\n\r\n")
        return try JSONParser().parse(response.body)["faults"]?.arrayValue ?? []
    }

    static func rule(_ port: Int, id: String) throws -> JSONValue? {
        try rules(port).first { $0["id"]?.stringValue == id }
    }

    static let configTarget = "/v1/mobile/workspaces/shop/config"
    static let config = "GET \(configTarget) HTTP/1.1\r\nHost: x\r\n\r\n"

    /// A customer of `shop` who is assigned the offer, so that every grants answer holds one grant.
    static let offerCustomer = GrantsEndpointTests.customer(offer: true)
    static let grants = GrantsEndpointTests.request("{\"customerID\":\"\(offerCustomer)\"}")

    /// A batch of one valid event, `eventID` e-`index`.
    static func events(_ index: Int) -> String {
        let body = EventsAPI.envelope([SampleEvents.placementEvent("exposure", id: "e-\(index)")]).serialized()
        return String(decoding: EventsAPI.request(body), as: UTF8.self)
    }

    /// One ordinary request to `endpoint` (a `FaultEngine.Endpoint` name); `index` keeps event ids apart.
    static func request(_ endpoint: String, _ index: Int) -> String {
        switch endpoint {
        case "grants": grants
        case "events": events(index)
        default: config
        }
    }

    /// Clones `shop` as `key` (`POST /_mock/workspaces/shop/clone`) and returns the clone's secret key.
    static func clone(_ port: Int, as key: String) throws -> String {
        let response = try fetch(port, post("/_mock/workspaces/shop/clone", #"{"workspaceKey": "\#(key)"}"#))
        guard response.status == 201, let secret = try JSONParser().parse(response.body)["secretKey"]?.stringValue
        else {
            throw Failure(description: "cloning shop as \(key) answered \(response.status): \(response.text)")
        }
        return secret
    }

    /// One ordinary request to `endpoint` for `workspace`, whose secret key is `secret`; `index` keeps event
    /// ids apart.
    static func request(_ endpoint: String, _ index: Int, workspace: String, secret: String) -> String {
        switch endpoint {
        case "grants":
            return GrantsEndpointTests.request("{\"customerID\":\"\(offerCustomer)\"}", secret: secret)
        case "events":
            let event = SampleEvents.placementEvent("exposure", id: "e-\(index)")
            let body = EventsAPI.envelope([event], workspaceKey: workspace).serialized()
            return String(decoding: EventsAPI.request(body), as: UTF8.self)
        default:
            return "GET /v1/mobile/workspaces/\(workspace)/config HTTP/1.1\r\nHost: x\r\n\r\n"
        }
    }

    /// `error.code` of an error body.
    static func errorCode(_ response: RawClient.Response) -> String? {
        (try? JSONParser().parse(response.body))?["error"]?["code"]?.stringValue
    }

    /// The grant tokens of a grants answer, and its `serverTime`.
    static func grantTokens(_ response: RawClient.Response) throws -> (tokens: [String], serverTime: Int64) {
        let body = try JSONParser().parse(response.body)
        return (body["grants"]?.arrayValue?.compactMap(\.stringValue) ?? [], body["serverTime"]?.int64Value ?? 0)
    }
}

/// A connection that reads whatever the server sends until it closes the connection, for faults that a
/// response parser cannot show: a connection dropped with no answer, a body cut short of its Content-Length.
final class WireConnection {
    /// What arrived before the server closed the connection.
    struct Received {
        var bytes: [UInt8]

        /// The head's end, when a whole head arrived.
        private var headEnd: Int? {
            let marker = Array("\r\n\r\n".utf8)
            guard bytes.count >= marker.count else { return nil }
            return (0...(bytes.count - marker.count)).first { bytes[$0..<$0 + marker.count].elementsEqual(marker) }
        }

        var status: Int? {
            guard let headEnd else { return nil }
            let line = String(decoding: bytes[..<headEnd], as: UTF8.self).prefix { $0 != "\r" }
            let parts = line.split(separator: " ")
            return parts.count >= 2 ? Int(parts[1]) : nil
        }

        func header(_ name: String) -> String? {
            guard let headEnd else { return nil }
            let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                if line[..<colon].lowercased() == name.lowercased() {
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }

        /// The bytes after the head.
        var body: [UInt8] {
            guard let headEnd else { return [] }
            return Array(bytes[(headEnd + 4)...])
        }
    }

    private let client: RawClient

    init(port: Int) throws {
        client = try RawClient(port: port, timeout: 15)
    }

    func send(_ text: String) throws { try client.send(text) }

    /// True when bytes (or the end of the stream) are waiting to be read right now.
    func isReadable() -> Bool { client.hasDataAvailable(waitingMilliseconds: 0) }

    /// Reads until the server closes the connection; throws if it keeps it open past the read timeout.
    func readUntilClosed() throws -> Received { Received(bytes: try client.readUntilClosed()) }

    /// One request on a fresh connection, and everything that arrives until the server closes it.
    static func exchange(_ port: Int, _ request: String) throws -> Received {
        let connection = try WireConnection(port: port)
        try connection.send(request)
        return try connection.readUntilClosed()
    }
}
