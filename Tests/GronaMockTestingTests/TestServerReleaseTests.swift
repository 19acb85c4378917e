import Foundation
import GronaMockTestSupport
import Testing

@testable import GronaMockTesting

/// An SDK's test suite starts a mock per test, hundreds in one process: each must give back what it took.
@Suite("Test server: nothing left behind")
struct TestServerReleaseTests {
    #if os(Linux)
    @Test("a test server stopped and let go closes its database: no descriptor still points into its directory")
    func releasesItsDatabase() async throws {
        var server: GronaMockTestServer? = try await GronaMockTestServer.start()
        let directory = try #require(server?.temporaryDirectory.path)
        #expect(Self.descriptors(into: directory) > 0)
        await server?.stop()
        server = nil
        // The last reference may go on the thread that stopped it: wait for the descriptors, with a deadline.
        _ = await eventually { Self.descriptors(into: directory) == 0 }
        #expect(Self.descriptors(into: directory) == 0)
    }

    /// This process's descriptors open on a file under `directory` (a removed file keeps its path in the link).
    static func descriptors(into directory: String) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter {
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) ?? "")
                .hasPrefix(directory + "/")
        }.count
    }
    #endif
}
