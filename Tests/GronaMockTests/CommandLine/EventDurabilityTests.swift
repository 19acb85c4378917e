import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@Suite("Events are durable once acknowledged")
struct EventDurabilityTests {
    private static func batch(_ ids: [String]) -> String {
        let events = ids.map { id in
            #"{"eventID":"\#(id)","type":"exposure","timestamp":1764478799001,"placement":"home_top","#
                + #""screen":{"type":"home"},"visitID":"v-1","campaignID":"home-hero","variantID":"banner","arm":"treatment"}"#
        }
        return #"{"workspaceKey":"shop","installID":"install-1","sdk":{"platform":"ios","version":"1.4.0"},"#
            + #""app":{"id":"com.shop","version":"1.0"},"sentAt":1764478800123,"events":[\#(events.joined(separator: ","))]}"#
    }

    @Test("SIGKILL mid-stream from several connections: after a restart every acknowledged event is there exactly once")
    func killMidStream() throws {
        let fixture = try MockFixture.standard()
        let arguments = [
            "serve", "--port", "0", "--workspaces", fixture.workspaces.path, "--keys", fixture.keys.path, "--db",
            fixture.database.path,
        ]
        let server = try ServerProcess(arguments)
        let acknowledged = Mutex<Set<String>>([])
        let port = server.port
        let senders = (0..<4).map { sender in
            Thread {
                guard let client = try? RawClient(port: port, timeout: 5) else { return }
                for round in 0..<10_000 {
                    let ids = (0..<20).map { "s\(sender)-r\(round)-e\($0)" }
                    let body = Self.batch(ids)
                    let request =
                        "POST /v1/mobile/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    guard (try? client.send(request)) != nil, let response = try? client.readResponse(),
                        response.status == 200
                    else { return }
                    acknowledged.withLock { $0.formUnion(ids) }
                }
            }
        }
        for sender in senders { sender.start() }
        // Kill once a good number of batches are acknowledged, while the senders are still sending.
        #expect(eventually(seconds: 30) { acknowledged.withLock { $0.count } >= 2000 })
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        let acked = acknowledged.withLock { $0 }

        let restarted = try ServerProcess(arguments)
        defer { _ = restarted.stop() }
        var stored: [String] = []
        var cursor: String?
        repeat {
            let target = "/_mock/events?workspace=shop&limit=1000" + (cursor.map { "&cursor=\($0)" } ?? "")
            let response = try fetch(restarted.port, "GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
            let page = try JSONParser().parse(response.body)
            stored += page["events"]?.arrayValue?.compactMap { $0["eventID"]?.stringValue } ?? []
            cursor = page["nextCursor"]?.stringValue
        } while cursor != nil
        #expect(Set(stored).count == stored.count, "an event is stored twice")
        let missing = acked.subtracting(stored)
        #expect(missing.isEmpty, "\(missing.count) of \(acked.count) acknowledged events were lost")
    }
}
