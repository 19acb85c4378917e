import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Slow work runs on the pool: while a control request blocks, the event loop still answers others.
@Suite("Blocking work runs off the event loop")
struct BlockingPoolTests {
    @Test("a handler blocked on the pool does not stall another request on the same, single loop")
    func loopStaysFree() throws {
        let pool = BlockingPool(threads: 2)
        defer { pool.stop() }
        let gate = Gate()
        var router = Router()
        router.use(.prefix("/_mock/", except: ["/_mock/health/live"]), pool.offloading())
        router.on(.get, "/_mock/slow") { _ in
            gate.pass()
            return HTTPResponse(status: .ok)
        }
        router.on(.get, "/_mock/health/live") { _ in HTTPResponse(status: .ok) }
        var configuration = testServerConfiguration()
        configuration.eventLoops = 1
        let (slowStatus, liveStatus) = try withLiveServer(configuration, router: router) {
            server throws -> (Int, Int) in
            let slow = try RawClient(port: server.port)
            try slow.send("GET /_mock/slow HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(gate.waitForEntry())
            // The slow handler holds a pool thread; the loop answers this at once (the client gives up after 5 s).
            let live = try fetch(server.port, "GET /_mock/health/live HTTP/1.1\r\nHost: x\r\n\r\n").status
            gate.open()
            return (try slow.readResponse().status, live)
        }
        #expect(slowStatus == 200)
        #expect(liveStatus == 200)
    }

    @Test("stop runs what was queued before it")
    func stopDrains() {
        let pool = BlockingPool(threads: 1)
        let done = Mutex(0)
        for _ in 0..<100 { pool.execute { done.withLock { $0 += 1 } } }
        pool.stop()
        #expect(done.withLock { $0 } == 100)
    }
}
