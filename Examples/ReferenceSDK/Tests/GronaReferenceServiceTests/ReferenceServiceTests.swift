import Foundation
import GronaReferenceHTTP
import GronaReferenceSDK
import Testing

@testable import GronaReferenceService

/// The protocol's routes and errors, called without sockets. The clients point at a port nobody listens on, so
/// their requests fail at once and the commands exercise only the SDK's own answers.
@Suite("Test-service routes")
struct ReferenceServiceTests {
    static let key =
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEN+MWgzRvSKx8hPhe0fogcKUnWba6GrfjFEUutBXKmYT5ZykF5AVV0JldB0Vp8IyaVOXdpFhxUhH6x61DCClkwA=="

    static func createBody(_ changes: [String: JSON] = [:]) -> [UInt8] {
        var body: JSON = [
            "name": "routes", "baseURL": "http://127.0.0.1:1", "workspaceKey": "acme-market",
            "configKeys": ["acme-market-2026-10": .string(key)], "grantKeys": ["g": .string(key)],
            "bundledConfiguration": nil, "installID": "install-0001", "customerID": nil,
            "grantsSecretKey": "sk_test", "previewToken": nil,
            "events": ["maxBatchSize": 20, "maxAgeMs": 10_000, "gzip": true, "maxQueued": 1000],
            "configuration": ["pollIntervalMs": 60_000], "clock": ["startMs": 1_796_000_000_000],
            "app": ["id": "com.example", "version": "1.0.0"],
        ]
        for (key, value) in changes {
            guard var object = body.objectValue else { break }
            object[key] = value
            body = .object(object)
        }
        return body.serialized
    }

    /// The service's handler blocks its thread until the SDK work settles, as it does on a server thread; so it
    /// is called on a thread of its own, never on the test's, which belongs to the concurrency runtime's pool.
    static func handle(_ service: ReferenceService, _ request: HTTPRequest) async -> HTTPResponse {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: service.handle(request)) }.start()
        }
    }

    static func call(
        _ service: ReferenceService, _ method: String, _ path: String, _ body: String = ""
    ) async -> (Int, JSON?) {
        let response = await handle(service, HTTPRequest(method: method, target: path, body: Array(body.utf8)))
        return (response.status, try? JSONParser.parse(response.body))
    }

    static func create(_ service: ReferenceService, _ changes: [String: JSON] = [:]) async -> HTTPResponse {
        await handle(service, HTTPRequest(method: "POST", target: "/clients", body: createBody(changes)))
    }

    @Test("GET / names the service, protocol 1 and its capabilities")
    func info() async {
        let (status, body) = await Self.call(ReferenceService(mutation: nil), "GET", "/")
        #expect(status == 200)
        #expect(body?["protocol"]?.int64Value == 1)
        #expect(body?["capabilities"]?.arrayValue?.count == ReferenceService.capabilities.count)
        let (_, mutated) = await Self.call(ReferenceService(mutation: .noETag), "GET", "/")
        #expect(mutated?["mutation"]?.stringValue == "no-etag")
    }

    @Test("a client's life: created 201 with its Location, commands answered, refused ones 409, closed 204")
    func lifecycle() async {
        let service = ReferenceService(mutation: nil)
        let created = await Self.create(service)
        #expect(created.status == 201)
        let id = (try? JSONParser.parse(created.body))?["id"]?.stringValue ?? ""
        #expect(created.headers.contains { $0.name == "Location" && $0.value == "/clients/\(id)" })
        let (statusCode, status) = await Self.call(service, "POST", "/clients/\(id)", #"{"command": "status"}"#)
        #expect(statusCode == 200)
        #expect(status?["configuration"]?["source"] == .null)
        #expect(status?["online"] == true)
        #expect(
            await Self.call(
                service, "POST", "/clients/\(id)", #"{"command": "render", "placements": [{"placement": "home_top"}]}"#
            ).0 == 409)
        #expect(
            await Self.call(service, "POST", "/clients/\(id)", #"{"command": "visit", "screen": {"type": "home"}}"#).0
                == 200)
        #expect(
            await Self.call(
                service, "POST", "/clients/\(id)", #"{"command": "act", "placement": "home_top", "result": "accepted"}"#
            ).0 == 409)
        #expect(
            await Self.call(service, "POST", "/clients/\(id)", #"{"command": "advanceTime", "ms": 120000}"#).0 == 200)
        #expect(await Self.call(service, "DELETE", "/clients/\(id)").0 == 204)
        #expect(await Self.call(service, "POST", "/clients/\(id)", #"{"command": "status"}"#).0 == 404)
        #expect(await Self.call(service, "DELETE", "/clients/\(id)").0 == 404)
    }

    @Test(
        "bad bodies and unknown commands are 400 with a sentence",
        arguments: [
            "not json", #"{"command": "teleport"}"#, #"{"command": "advanceTime"}"#,
            #"{"command": "advanceTime", "ms": -1}"#,
            #"{"command": "visit", "screen": {"type": "spaceship"}}"#,
            #"{"command": "visit", "screen": {"type": "product"}}"#,
            #"{"command": "render", "placements": [{"placement": "home_topp"}]}"#,
            #"{"command": "render", "placements": [{"placement": "cart_line"}]}"#, #"{"command": "identify"}"#,
            #"{"command": "act", "placement": "home_top", "result": "maybe"}"#,
            #"{"command": "network", "online": "yes"}"#,
            "[]",
        ])
    func badCommands(_ body: String) async {
        let service = ReferenceService(mutation: nil)
        let created = await Self.create(service)
        let id = (try? JSONParser.parse(created.body))?["id"]?.stringValue ?? ""
        let (status, answer) = await Self.call(service, "POST", "/clients/\(id)", body)
        #expect(status == 400)
        #expect(answer?["error"]?.stringValue?.isEmpty == false)
    }

    @Test(
        "a client configuration the SDK cannot use is 400",
        arguments: [
            ["baseURL": "ftp://x"], ["workspaceKey": "Acme Market"], ["configKeys": ["k": "not base64!"]],
            ["configKeys": ["bad kid!": .string(key)]], ["installID": nil], ["clock": nil],
            ["events": ["maxBatchSize": 0]],
        ] as [[String: JSON]])
    func badClients(_ changes: [String: JSON]) async {
        let service = ReferenceService(mutation: nil)
        let response = await Self.create(service, changes)
        #expect(response.status == 400)
    }

    @Test("unknown clients are 404, unknown routes 404, wrong methods 405")
    func routes() async {
        let service = ReferenceService(mutation: nil)
        #expect(await Self.call(service, "POST", "/clients/99", #"{"command": "status"}"#).0 == 404)
        #expect(await Self.call(service, "GET", "/nowhere").0 == 404)
        #expect(await Self.call(service, "PUT", "/clients").0 == 405)
        #expect(await Self.call(service, "GET", "/clients/1").0 == 405)
    }

    @Test("--list-mutations vocabulary: at least 15, names unique and kebab-case")
    func mutations() {
        #expect(Mutation.allCases.count >= 15)
        #expect(Set(Mutation.allCases.map(\.rawValue)).count == Mutation.allCases.count)
        #expect(
            Mutation.allCases.allSatisfy { $0.rawValue.allSatisfy { $0 == "-" || ($0.isLowercase || $0.isNumber) } })
    }
}
