import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@Suite("Running as a service")
struct ServiceBehaviourTests {
    private static func arguments(_ fixture: MockFixture, _ extra: [String] = []) -> [String] {
        [
            "serve", "--port", "0", "--workspaces", fixture.workspaces.path, "--keys", fixture.keys.path, "--db",
            fixture.database.path,
        ] + extra
    }

    @Test("SIGTERM during load: no new connections, requests in flight answered, events committed, exit 0")
    func sigtermDuringLoad() throws {
        let fixture = try MockFixture.standard()
        let server = try ServerProcess(Self.arguments(fixture))
        let port = server.port
        let acknowledged = Mutex<Set<String>>([])
        let failures = Mutex<[String]>([])
        let senders = (0..<4).map { sender in
            Thread {
                guard let client = try? RawClient(port: port, timeout: 5) else { return }
                for round in 0..<100_000 {
                    let ids = (0..<10).map { "t\(sender)-r\(round)-e\($0)" }
                    let events = ids.map { id in
                        #"{"eventID":"\#(id)","type":"served","timestamp":1,"placement":"home_top","screen":{"type":"home"},"#
                            + #""visitID":"v","campaignID":"home-hero","variantID":"banner","arm":"treatment"}"#
                    }
                    let body =
                        #"{"workspaceKey":"shop","installID":"i","sdk":{"platform":"ios","version":"1"},"#
                        + #""app":{"id":"a","version":"1"},"sentAt":1,"events":[\#(events.joined(separator: ","))]}"#
                    guard (try? client.send(Control.request("POST", "/v1/mobile/events", body: body))) != nil else {
                        return
                    }
                    guard let response = try? client.readResponse() else { return }
                    guard response.status == 200 else {
                        failures.withLock { $0.append("status \(response.status)") }
                        return
                    }
                    acknowledged.withLock { $0.formUnion(ids) }
                    if response.header("Connection") == "close" { return }
                }
            }
        }
        for sender in senders { sender.start() }
        #expect(eventually(seconds: 30) { acknowledged.withLock { $0.count } >= 1000 })
        let started = Date()
        kill(server.process.processIdentifier, SIGTERM)
        // Within a moment of the signal, new connections are refused.
        #expect(eventually(seconds: 3) { (try? RawClient(port: port, timeout: 1)) == nil })
        let status = server.stop(signal: 0, within: 6)
        #expect(status == 0)
        #expect(Date().timeIntervalSince(started) < 6)
        #expect(failures.withLock { $0 }.isEmpty)

        let acked = acknowledged.withLock { $0 }
        let restarted = try ServerProcess(Self.arguments(fixture))
        defer { _ = restarted.stop() }
        var stored: Set<String> = []
        var cursor: String?
        repeat {
            let target = "/_mock/events?workspace=shop&limit=1000" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try JSONParser().parse(
                try fetch(restarted.port, "GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n").body)
            stored.formUnion(page["events"]?.arrayValue?.compactMap { $0["eventID"]?.stringValue } ?? [])
            cursor = page["nextCursor"]?.stringValue
        } while cursor != nil
        #expect(acked.subtracting(stored).isEmpty, "acknowledged events lost at SIGTERM")
    }

    @Test("secret keys, private keys and whole grant tokens never appear in a log line or an error body")
    func noSecretsLeak() throws {
        let fixture = try MockFixture.standard()
        let server = try ServerProcess(Self.arguments(fixture, ["--access-log", "--log-format", "json"]))
        let secret = "sk_test_shop_secret"
        var bodies: [String] = []
        var tokens: [String] = []
        let customer = GrantsEndpointTests.customer(offer: true)
        let granted = try fetch(server.port, GrantsEndpointTests.request("{\"customerID\":\"\(customer)\"}"))
        tokens += try JSONParser().parse(granted.body)["grants"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(!tokens.isEmpty)
        for request in [
            GrantsEndpointTests.request("{\"customerID\":\"c\"}", secret: secret + "x"),
            GrantsEndpointTests.request("{\"customerID\":\"c\"}", target: "/v1/mobile/grants?key=\(secret)"),
            GrantsEndpointTests.request("{\"customerID\":", secret: secret),
            GrantsEndpointTests.request("{\"customerID\":\"\(secret)\"", secret: secret),
            "GET /v1/mobile/grants?token=\(tokens[0]) HTTP/1.1\r\nHost: x\r\n\r\n",
        ] {
            bodies.append(try fetch(server.port, request).text)
        }
        // A workspace edit that breaks the secret's JSON must not print it either.
        let broken = MockFixture.workspace("shop").replacingOccurrences(of: "\"\(secret)\"", with: secret)
        try fixture.writeWorkspace("shop", broken)
        // Health lists the file's error once the watcher has read (and logged) the broken edit.
        #expect(
            eventually {
                let health = try? JSONParser().parse(
                    try fetch(server.port, "GET /_mock/health HTTP/1.1\r\nHost: x\r\n\r\n").body)
                return health?["workspaces"]?["errors"]?.arrayValue?.isEmpty == false
            })
        #expect(server.stop() == 0)
        let log = server.standardError
        #expect(log.contains("\"message\":\"request\""), "the access log is on")
        let pem = try String(contentsOf: fixture.keys.appendingPathComponent("grt-1.pem"), encoding: .utf8)
        let keyLines = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        for text in [log] + bodies {
            #expect(!text.contains(secret))
            for token in tokens { #expect(!text.contains(token)) }
            for line in keyLines { #expect(!text.contains(line)) }
        }
    }
}
