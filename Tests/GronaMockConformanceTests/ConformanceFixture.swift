import Foundation
import GronaMock
import GronaMockConformance
import GronaMockHTTP
import GronaMockSQLite
import Testing

/// A mock as `grona-mock conformance` starts it (fresh keys, no workspace files, a database of its own in a
/// temporary directory), for the duration of `body`, and a scripted test service beside it.
enum ConformanceFixture {
    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func withMock<T>(_ body: (GronaMockServer) throws -> T) throws -> T {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try ConformanceKeys.write(to: directory.path)
        let configuration = GronaMockConformanceTestsConfiguration.make(directory.path)
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        return try body(server)
    }

    /// Runs `scenarios` against a scripted service with `flaws`.
    static func run(
        _ scenarios: [Scenario], flaws: ScriptedService.Flaws = [], filter: TestFilter? = nil
    ) throws -> ConformanceReport {
        let service = try ScriptedService(flaws: flaws)
        defer { service.stop() }
        return try withMock { server in
            let client = try #require(ServiceClient(url: service.url, timeoutSeconds: 10))
            let runner = ConformanceRunner(engine: server.engine, mockURL: server.url, service: client)
            return try runner.run(scenarios, filter: filter ?? TestFilter())
        }
    }

    /// A scenario from its text; the test fails where it does not load.
    static func scenario(_ text: String, file: String = "test.json") throws -> Scenario {
        try ScenarioLoader.load(Array(text.utf8), file: file)
    }

    /// The built-in scenario named `name` (`area/scenario`).
    static func builtIn(_ name: String) throws -> Scenario {
        try #require(Catalogue.builtIn().scenarios.first { $0.testName == name }, "no built-in \(name)")
    }
}

enum GronaMockConformanceTestsConfiguration {
    static func make(_ directory: String) -> GronaMockConfiguration {
        var http = HTTPServer.Configuration(host: "127.0.0.1", port: 0, eventLoops: 2)
        http.shutdownTimeout = .seconds(3)
        return GronaMockConfiguration(
            http: http, workspacesDirectory: directory, keysDirectory: directory,
            storage: .sqlite(path: directory + "/grona-mock.sqlite"))
    }
}
