import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockSQLite
import GronaMockTLS
import GronaMockTestSupport
import Testing

/// Every SDK endpoint of the engine answers the same over HTTPS as over plain HTTP: one engine with both
/// listeners, each request sent on both, the answers compared (status, the headers an SDK reads, the body
/// where it is deterministic).
@Suite("The engine over TLS", .serialized)
struct EngineOverTLSTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let secret = "sk_test_acme_market_local"
    static let configTarget = "/v1/mobile/workspaces/acme-market/config"

    /// The committed workspaces and keys, events in memory, HTTPS then plain HTTP, on `backend`.
    static func withEngine<T>(
        _ backend: PollerBackend, _ body: (GronaMockServer, TestCertificates, (tls: Int, plain: Int)) throws -> T
    ) throws -> T {
        let certificates = try TestCertificates()
        var configuration = GronaMockConfiguration(
            workspacesDirectory: repository.appendingPathComponent("workspaces").path,
            keysDirectory: repository.appendingPathComponent("keys").path, storage: .sqlite(path: ":memory:"))
        configuration.http.listeners = [try certificates.listener(), .plain(port: 0)]
        configuration.http.eventLoops = 2
        configuration.http.pollerBackend = backend
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        let ports = server.urls.map { Int($0.split(separator: ":").last ?? "") ?? 0 }
        #expect(server.urls.first?.hasPrefix("https://") == true)
        return try body(server, certificates, (ports[0], ports.count > 1 ? ports[1] : 0))
    }

    /// One request on a fresh connection, plain or over TLS.
    static func exchange(_ request: [UInt8], port: Int, tls: ClientTLSContext?) throws -> RawClient.Response {
        let client = try tls.map { try RawClient(port: port, tls: $0) } ?? RawClient(port: port)
        try client.send(request)
        return try client.readResponse()
    }

    static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let run = try runTool(
            [
                "python3", "-c",
                "import gzip, sys; sys.stdout.write(gzip.compress(bytes.fromhex(sys.stdin.read())).hex())",
            ],
            input: hex)
        let text = Array(run.output.utf8)
        return stride(from: 0, to: text.count - 1, by: 2).compactMap {
            UInt8(String(decoding: text[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
    }

    static func batch(eventID: String) -> [UInt8] {
        let text = """
            {"workspaceKey":"acme-market","installID":"install-tls","sdk":{"platform":"ios","version":"1.4.0"},\
            "app":{"id":"com.example.shop","version":"5.2.0"},"sentAt":1764478800123,"events":[{"eventID":"\(eventID)",\
            "type":"app_open","timestamp":1764478799001,"sessionID":"s-1","customerID":null,"demo":false,\
            "configRevision":1}]}
            """
        return Array(text.utf8)
    }

    @Test(
        "config (with ETag, then 304), JWKS, grants and gzip events answer the same over TLS as over plain HTTP",
        arguments: PollerBackend.allCases)
    func sameAnswers(backend: PollerBackend) throws {
        try Self.withEngine(backend) { _, certificates, ports in
            var answers: [[RawClient.Response]] = []
            for (index, tls) in [nil, certificates.client].enumerated() {
                let port = tls == nil ? ports.plain : ports.tls
                let config = try Self.exchange(
                    Array("GET \(Self.configTarget) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), port: port, tls: tls)
                let etag = config.header("ETag") ?? "none"
                let notModified = try Self.exchange(
                    Array("GET \(Self.configTarget) HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\n\r\n".utf8),
                    port: port,
                    tls: tls)
                let jwks = try Self.exchange(
                    Array("GET /v1/mobile/workspaces/acme-market/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
                    port: port, tls: tls)
                let grantBody = "{\"customerID\":\"cust_42\"}"
                let grants = try Self.exchange(
                    Array(
                        ("POST /v1/mobile/grants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            + "Authorization: Bearer \(Self.secret)\r\nContent-Length: \(grantBody.utf8.count)\r\n\r\n\(grantBody)")
                            .utf8),
                    port: port, tls: tls)
                let gzipped = try Self.gzip(Self.batch(eventID: "e-tls-\(index)"))
                let events = try Self.exchange(
                    Array(
                        ("POST /v1/mobile/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            + "Content-Encoding: gzip\r\nContent-Length: \(gzipped.count)\r\n\r\n").utf8) + gzipped,
                    port: port, tls: tls)
                answers.append([config, notModified, jwks, grants, events])
            }
            let (plain, tls) = (answers[0], answers[1])
            #expect(plain.map(\.status) == [200, 304, 200, 200, 200], "\(plain.map(\.text))")
            #expect(tls.map(\.status) == plain.map(\.status), "\(tls.map(\.text))")
            for (plainAnswer, tlsAnswer) in zip(plain, tls) {
                for name in ["Content-Type", "ETag", "Cache-Control", "Content-Encoding"] {
                    #expect(tlsAnswer.header(name) == plainAnswer.header(name), "\(name)")
                }
            }
            // The signed configuration and the keys are the same bytes; grants are signed anew (their ids and
            // times differ) and events name their own ids, so those compare by shape.
            #expect(tls[0].body == plain[0].body)
            #expect(tls[2].body == plain[2].body)
            let tlsGrants = try JSONParser().parse(tls[3].body)
            #expect(tlsGrants["grants"]?.arrayValue != nil)
            #expect(tls[4].text.replacingOccurrences(of: "e-tls-1", with: "e-tls-0") == plain[4].text)
        }
    }

    /// The open connections the engine's health route counts, read over plain HTTP.
    static func openConnections(_ port: Int) throws -> Int {
        let health = try fetch(port, "GET /_mock/health HTTP/1.1\r\nHost: x\r\n\r\n")
        return try JSONParser().parse(health.body)["connections"]?["open"]?.doubleValue.map { Int($0) } ?? -1
    }

    @Test(
        "an events upload over TLS cut at any byte, then closed or reset, leaves no connection open",
        arguments: PollerBackend.allCases)
    func cutUploads(backend: PollerBackend) throws {
        try Self.withEngine(backend) { _, certificates, ports in
            let body = Self.batch(eventID: "e-cut")
            let request =
                Array(
                    ("POST /v1/mobile/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.count)\r\n\r\n").utf8) + body
            for cut in [1, 20, request.count - body.count - 2, request.count - body.count / 2, request.count - 1] {
                for reset in [false, true] {
                    let client = try RawClient(port: ports.tls, tls: certificates.client)
                    try client.send(Array(request.prefix(cut)))
                    if reset { client.reset() } else { client.closeNow() }
                    // The health request itself is the one connection left.
                    #expect(
                        try eventually { try Self.openConnections(ports.plain) == 1 },
                        "a connection was left open after \(reset ? "a reset" : "a close") at byte \(cut)")
                }
            }
        }
    }

    @Test("pipelined SDK requests on one TLS connection are answered in order", arguments: PollerBackend.allCases)
    func pipelined(backend: PollerBackend) throws {
        try Self.withEngine(backend) { _, certificates, ports in
            let client = try RawClient(port: ports.tls, tls: certificates.client)
            let body = Self.batch(eventID: "e-pipe")
            let requests =
                Array("GET \(Self.configTarget) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
                + Array(
                    ("POST /v1/mobile/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.count)\r\n\r\n").utf8) + body
                + Array("GET /v1/mobile/workspaces/acme-market/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
                + Array("GET /_mock/health HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            try client.send(requests)
            let answers = try (0..<4).map { _ in try client.readResponse() }
            #expect(answers.map(\.status) == [200, 200, 200, 200], "\(answers.map(\.text))")
            #expect(answers[0].header("Content-Type") == "application/jose+json")
            #expect(answers[2].text.contains("\"keys\""))
            #expect(answers[3].text.contains("\"status\":\"ok\""))
        }
    }
}
