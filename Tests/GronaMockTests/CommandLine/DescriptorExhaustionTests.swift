import Foundation
import GronaMockTestSupport
import Testing

/// A server out of file descriptors (`ulimit -n`, or a flood of connections that stay open) keeps answering:
/// each client it cannot take is told so with a 503 rather than left in the backlog, and it serves again as
/// soon as descriptors are freed. (A loop whose spare descriptor was taken by another thread pauses accepting
/// for 100 ms rather than spinning; that race is not reproduced here.)
@Suite("Out of file descriptors")
struct DescriptorExhaustionTests {
    @Test("clients past the descriptor limit get 503 at once, and once they leave the server serves again")
    func exhaustionIsAnsweredAndRecovered() throws {
        let fixture = try MockFixture.standard()
        // About 20 descriptors are open at start with two event loops (database files, loops, listeners): 48
        // leaves room for a few dozen connections, and 80 clients are more than that. The loops are named, since
        // by default there is one per core, each with descriptors of its own.
        let server = try ServerProcess(
            [
                "serve", "--port", "0", "--event-loops", "2", "--workspaces", fixture.workspaces.path, "--keys",
                fixture.keys.path, "--db", fixture.database.path,
            ], descriptorLimit: 48)
        defer { _ = server.stop() }
        let request = "GET /v1/mobile/workspaces/shop/config HTTP/1.1\r\nHost: x\r\n\r\n"
        var clients: [RawClient] = []
        var statuses: [Int] = []
        for _ in 0..<80 {
            let client = try RawClient(port: server.port, timeout: 10)
            try client.send(request)
            // Every client hears something: served on a kept-alive connection, or refused.
            let response = try client.readResponse()
            statuses.append(response.status)
            if response.status == 503 { #expect(response.text.contains("too_many_connections")) }
            clients.append(client)
        }
        #expect(Set(statuses).isSubset(of: [200, 503]), "statuses: \(statuses)")
        #expect(statuses.contains(200))
        #expect(statuses.contains(503), "80 connections fitted under the limit: the test no longer exhausts it")

        // The served clients leave; new ones are served again.
        clients.removeAll()
        #expect(eventually(seconds: 10) { (try? fetch(server.port, request).status) == 200 })
        #expect(server.process.isRunning)
    }
}
