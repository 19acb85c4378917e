import Foundation
import GronaMock
import GronaMockClient
import GronaMockConformance
import Testing

/// `GronaMockClient.conformanceRun()` against a server that ran conformance: what an iOS team's CI reads after
/// `grona-mock conformance --stay`, typed.
@Suite("GronaMockClient: conformance results")
struct ClientConformanceTests {
    @Test("no run yet is nil; a run's failures read back typed, with the report's counts and explanations")
    func conformanceRunReadsBack() async throws {
        let service = try ScriptedService(flaws: .acceptsAnySignature)
        defer { service.stop() }
        let directory = try ConformanceFixture.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try ConformanceKeys.write(to: directory.path)
        let server = try GronaMockServer.start(
            GronaMockConformanceTestsConfiguration.make(directory.path), logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        let client = GronaMockClient(baseURL: try #require(URL(string: server.url)))
        #expect(try await client.conformanceRun() == nil)

        let serviceClient = try #require(ServiceClient(url: service.url, timeoutSeconds: 10))
        let runner = ConformanceRunner(engine: server.engine, mockURL: server.url, service: serviceClient)
        let report = try runner.run(
            [
                try ConformanceFixture.builtIn("signatures/bad-signature"),
                try ConformanceFixture.builtIn("caching/etag-304"),
            ],
            filter: TestFilter())

        let run = try #require(try await client.conformanceRun())
        #expect(run.finished)
        #expect(run.summary.failed == report.failed)
        #expect(run.summary.passed == report.passed)
        #expect(run.tests.map(\.name) == report.results.map(\.name))
        let failed = try #require(run.tests.first { $0.name == "signatures/bad-signature" })
        #expect(failed.outcome == .failed)
        #expect(failed.failures.contains { $0.expected == "home_top to show nothing" && $0.place == "steps[2] render" })
    }
}
