import Foundation
import GronaMock
import GronaMockSQLite
import GronaMockTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Defects an independent review found after the hardening, each with the input that showed it.
@Suite("Review findings", .serialized)
struct ReviewFindingsTests {
    @Test("a FIFO dropped into the workspaces folder is refused, not waited on; the control API keeps answering")
    func fifoInWorkspaces() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let path = fixture.workspaces.appendingPathComponent("zz.json").path
            #expect(mkfifo(path, 0o644) == 0)
            #expect(eventually { server.workspaces.loadErrors.contains { $0.file.hasSuffix("zz.json") } })
            let reset = try fetch(server.port, Control.request("POST", "/_mock/reset"))
            #expect(reset.status == 200)
            #expect(try fetch(server.port, Control.request("GET", "/_mock/clock")).status == 200)
        }
    }

    @Test("a FIFO in --static stops start-up with a clear error instead of hanging it")
    func fifoInStatic() throws {
        let fixture = try MockFixture.standard()
        let files = fixture.root.appendingPathComponent("static")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        #expect(mkfifo(files.appendingPathComponent("pipe.json").path, 0o644) == 0)
        var configuration = fixture.configuration()
        configuration.staticDirectory = files.path
        #expect {
            _ = try GronaMockServer.start(configuration, logger: .silent)
        } throws: { error in
            "\(error)".contains("is not a regular file")
        }
    }

    @Test("an in-memory database named as a URI (file::memory:) serves the event API")
    func uriInMemoryDatabase() throws {
        let fixture = try MockFixture.standard()
        var configuration = fixture.configuration()
        configuration.storage = .sqlite(path: "file::memory:")
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        #expect(
            try EventsAPI.post(server.port, events: [SampleEvents.placementEvent("exposure", id: "m-1")]).status == 200)
        #expect(try EventsAPI.stored(server.port).count == 1)
    }

    @Test("purchase totals are bounded, so no client can make the summary overflow")
    func totalMinorBounded() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let huge = try EventsAPI.post(
                server.port, events: [SampleEvents.purchase(id: "p-huge", totalMinor: .max)])
            #expect(huge.body["rejected"]?.arrayValue?.first?["field"]?.stringValue == "totalMinor")
            let largest = (0..<20).map { SampleEvents.purchase(id: "p-\($0)", totalMinor: 1_000_000_000_000_000) }
            #expect(try EventsAPI.post(server.port, events: largest).body["accepted"]?.int64Value == 20)
            let summary = try fetch(server.port, Control.request("GET", "/_mock/events/summary?workspace=shop"))
            #expect(summary.status == 200)
        }
    }
}
