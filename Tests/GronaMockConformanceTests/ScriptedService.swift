import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport

/// A tiny test service for the runner's own tests: an SDK core of a page, on the HTTP core, that does what
/// the protocol's "What the catalogue expects of an SDK" says for banners (verified configuration, priority,
/// kills at once, `eligible`/`served`/`anchor_visible`/`exposure` once per visit, batches on `flush`), and
/// nothing more. `flaws` break one behaviour each, as the reference service's mutations do, so a test can
/// see the runner catch them.
final class ScriptedService: Sendable {
    struct Flaws: OptionSet, Sendable {
        let rawValue: Int
        /// Uses a configuration whatever its signatures say.
        static let acceptsAnySignature = Flaws(rawValue: 1)
        /// Logs `exposure` each time the anchor shows, not once per visit.
        static let repeatsExposures = Flaws(rawValue: 2)
    }

    private struct Client {
        let mockPort: Int
        let workspaceKey: String
        let installID: String
        let keys: [String: P256PublicKey]
        let pollInterval: Int64
        let maxBatchSize: Int
        var now: Int64
        var lastPoll: Int64
        var payload: JSONValue?
        var revision: Int64?
        var etag: String?
        var visit = 0
        var screen: JSONValue = .null
        var shown: [String: JSONValue] = [:]
        var logged: Set<String> = []
        var queue: [JSONValue] = []
        var events = 0
    }

    let flaws: Flaws
    private let clients = Mutex<[String: Client]>([:])
    private let created = Mutex(0)
    private let server = Mutex<HTTPServer?>(nil)

    init(flaws: Flaws = []) throws {
        self.flaws = flaws
        var router = Router()
        let service = Unowned(self)
        router.on(.get, "/") { _ in
            HTTPResponse.json(
                #"{"name": "scripted", "version": "1", "protocol": 1, "capabilities": ["configuration", "components", "events"]}"#
            )
        }
        router.on(.post, "/clients") { request in try service.value.create(request) }
        router.on(.post, "/clients/{id}") { request in try service.value.command(request) }
        router.on(.delete, "/clients/{id}") { request in
            service.value.clients.withLock { _ = $0.removeValue(forKey: request.pathParameters["id"] ?? "") }
            return HTTPResponse(status: .noContent)
        }
        let started = try HTTPServer.start(
            configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0, eventLoops: 1), router: router,
            logger: .silent)
        server.withLock { $0 = started }
    }

    var url: String { "http://127.0.0.1:\(server.withLock { $0?.port ?? 0 })" }

    func stop() {
        let running = server.withLock { $0 }
        running?.shutdown()
        running?.wait()
    }

    /// Holds the service without keeping it alive from its own routes.
    private struct Unowned: @unchecked Sendable {
        unowned let value: ScriptedService
        init(_ value: ScriptedService) { self.value = value }
    }

    // MARK: - The protocol

    private func create(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONParser().parse(request.body)
        guard let base = body["baseURL"]?.stringValue, let port = base.split(separator: ":").last.flatMap({ Int($0) }),
            let key = body["workspaceKey"]?.stringValue, let start = body["clock"]?["startMs"]?.int64Value
        else { return HTTPResponse.json(#"{"error": "bad client"}"#, status: .badRequest) }
        var keys: [String: P256PublicKey] = [:]
        for member in body["configKeys"]?.objectValue ?? [:] {
            if let der = member.value.stringValue.flatMap(Base64.decode), let key = try? P256PublicKey(spkiDER: der) {
                keys[member.key] = key
            }
        }
        var client = Client(
            mockPort: port, workspaceKey: key, installID: body["installID"]?.stringValue ?? "install",
            keys: keys, pollInterval: body["configuration"]?["pollIntervalMs"]?.int64Value ?? 60000,
            maxBatchSize: Int(body["events"]?["maxBatchSize"]?.int64Value ?? 20), now: start, lastPoll: start)
        fetchConfiguration(&client)
        let id = created.withLock { count -> String in
            count += 1
            return "c\(count)"
        }
        clients.withLock { $0[id] = client }
        return HTTPResponse.json(#"{"id": "\#(id)"}"#, status: .created)
    }

    private func command(_ request: HTTPRequest) throws -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        let body = try JSONParser().parse(request.body)
        guard var client = clients.withLock({ $0[id] }) else {
            return HTTPResponse.json(#"{"error": "no such client"}"#, status: .notFound)
        }
        let result: JSONValue
        switch body["command"]?.stringValue {
        case "status":
            result = [
                "configuration": [
                    "revision": client.revision.map { .number(JSONNumber($0)) } ?? .null,
                    "source": client.revision == nil ? .null : "network",
                ],
                "queuedEvents": .number(JSONNumber(client.queue.count)), "customerID": .null, "online": true,
            ]
        case "advanceTime":
            client.now += body["ms"]?.int64Value ?? 0
            if client.now - client.lastPoll >= client.pollInterval {
                client.lastPoll = client.now
                fetchConfiguration(&client)
            }
            result = [:]
        case "visit":
            client.visit += 1
            client.screen = body["screen"] ?? .null
            client.shown = [:]
            client.logged = []
            result = ["visitID": .string("v-\(client.visit)")]
        case "render":
            for placement in (body["placements"]?.arrayValue ?? []).compactMap({ $0["placement"]?.stringValue }) {
                render(placement, &client)
            }
            result = ["slots": slots(client)]
        case "onScreen":
            result = ["slots": slots(client)]
        case "anchorVisible":
            let placement = body["placement"]?.stringValue ?? ""
            log("anchor_visible", placement, &client)
            log("exposure", placement, &client)
            result = [:]
        case "flush":
            flush(&client)
            result = [:]
        default:
            return HTTPResponse.json(#"{"error": "unknown command"}"#, status: .badRequest)
        }
        clients.withLock { $0[id] = client }
        return HTTPResponse.json(result.serialized())
    }

    // MARK: - The SDK core

    private func fetchConfiguration(_ client: inout Client) {
        var request = "GET /v1/mobile/workspaces/\(client.workspaceKey)/config HTTP/1.1\r\nHost: x\r\n"
        if let etag = client.etag { request += "If-None-Match: \(etag)\r\n" }
        guard let response = try? fetch(client.mockPort, request + "\r\n"), response.status == 200 else { return }
        let verified = try? JWSVerifier.verifyGeneral(response.body, keys: client.keys, type: .configuration)
        let good = verified?.signatures.contains { if case .success = $0.result { true } else { false } } ?? false
        guard good || flaws.contains(.acceptsAnySignature),
            let encoded = try? JSONParser().parse(response.body)["payload"]?.stringValue,
            let payload = Base64.urlDecode(encoded).flatMap({ try? JSONParser().parse($0) }),
            payload["workspaceKey"]?.stringValue == client.workspaceKey
        else { return }
        client.payload = payload
        client.revision = payload["revision"]?.int64Value
        client.etag = response.header("ETag")
        // A kill leaves the screen at once.
        let live = Set(
            (payload["campaigns"]?.arrayValue ?? []).filter { $0["status"]?.stringValue == "live" }
                .compactMap { $0["id"]?.stringValue })
        client.shown = client.shown.filter { live.contains($0.value["campaignID"]?.stringValue ?? "") }
    }

    private func render(_ placement: String, _ client: inout Client) {
        let candidates = (client.payload?["campaigns"]?.arrayValue ?? []).filter {
            $0["status"]?.stringValue == "live" && $0["placement"]?.stringValue == placement
                && $0["variants"]?[0]?["component"]?["type"]?.stringValue == "banner"
        }
        guard
            let campaign = candidates.max(by: { ($0["priority"]?.int64Value ?? 0) < ($1["priority"]?.int64Value ?? 0) }
            ),
            let variant = campaign["variants"]?[0], let component = variant["component"]
        else { return }
        client.shown[placement] = [
            "campaignID": campaign["id"] ?? .null, "variantID": variant["id"] ?? .null, "kind": "component",
            "type": "banner", "isPreview": false, "body": component,
        ]
        log("eligible", placement, &client)
        log("served", placement, &client)
    }

    private func slots(_ client: Client) -> JSONValue {
        .array(
            client.shown.sorted { $0.key < $1.key }.map {
                ["placement": .string($0.key), "key": .null, "content": $0.value]
            })
    }

    private func log(_ type: String, _ placement: String, _ client: inout Client) {
        guard let content = client.shown[placement] else { return }
        let once = "\(type) \(placement)"
        guard !client.logged.contains(once) || (type == "exposure" && flaws.contains(.repeatsExposures)) else { return }
        client.logged.insert(once)
        client.events += 1
        client.queue.append([
            "eventID": .string("\(client.installID)-\(client.events)"), "type": .string(type),
            "timestamp": .number(JSONNumber(client.now)),
            "configRevision": client.revision.map { .number(JSONNumber($0)) } ?? .null,
            "placement": .string(placement), "screen": client.screen, "key": .null,
            "visitID": .string("v-\(client.visit)"),
            "campaignID": content["campaignID"] ?? .null, "variantID": content["variantID"] ?? .null,
            "arm": "treatment",
            "demo": false,
        ])
    }

    /// Sends the queue in batches of `maxBatchSize`, one after another, stopping at the first not answered 200.
    private func flush(_ client: inout Client) {
        while !client.queue.isEmpty {
            let batch = Array(client.queue.prefix(max(1, client.maxBatchSize)))
            let body: JSONValue = [
                "workspaceKey": .string(client.workspaceKey), "installID": .string(client.installID),
                "sdk": ["platform": "ios", "version": "0"], "app": ["id": "test", "version": "1"],
                "sentAt": .number(JSONNumber(client.now)), "events": .array(batch),
            ]
            let bytes = body.serialized()
            let request =
                "POST /v1/mobile/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(bytes.count)\r\n\r\n"
            guard let response = try? fetch(client.mockPort, request + String(decoding: bytes, as: UTF8.self)),
                response.status == 200
            else { return }
            client.queue.removeFirst(batch.count)
        }
    }
}
