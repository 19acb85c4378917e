import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockSQLite

@testable import GronaMockLoad

/// A grona-mock in this process on 127.0.0.1:0 with the repository's workspaces and keys and a database of
/// its own, for a short run of the fleet against it. `stop()` always runs (the tests call it in `defer`).
final class LoadFixture {
    let server: GronaMockServer
    let directory: URL

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("grona-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = GronaMockConfiguration(
            workspacesDirectory: Self.repository.appendingPathComponent("workspaces").path,
            keysDirectory: Self.repository.appendingPathComponent("keys").path,
            storage: .sqlite(path: directory.appendingPathComponent("grona-mock.sqlite").path),
            reloadInterval: .seconds(60))
        configuration.http.host = "127.0.0.1"
        configuration.http.port = 0
        configuration.http.eventLoops = 1
        // A second of max-age, so that a run of a few seconds polls with If-None-Match.
        configuration.configMaxAge = 1
        server = try GronaMockServer.start(configuration, logger: .silent)
    }

    func stop() {
        server.shutdown()
        server.wait()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A short, small run: 20 installs, 100 visits per second for a second, batches of 10 sent within 200 ms,
    /// retries after a few milliseconds.
    func settings(tag: String) -> LoadSettings {
        var settings = Self.shortRun(tag: tag)
        settings.port = server.port
        return settings
    }

    /// The settings of `settings(tag:)` but the target.
    static func shortRun(tag: String) -> LoadSettings {
        var settings = LoadSettings()
        settings.installs = 20
        settings.rate = 100
        settings.duration = .seconds(1)
        settings.seed = 14
        settings.batchSize = 10
        settings.batchAge = .milliseconds(200)
        settings.retryBase = .milliseconds(5)
        settings.timeout = .seconds(5)
        settings.secretKey = "sk_test_acme_market_local"
        settings.runTag = tag
        settings.drainLimit = .seconds(20)
        return settings
    }

    /// Adds a fault rule (docs/faults.md) and checks that it was taken.
    func addFault(_ rule: String) throws {
        let client = try HTTPClient(HTTPClient.Configuration(host: "127.0.0.1", port: server.port, maxConnections: 1))
        let completion = client.exchange(
            ClientRequest(
                tag: RequestTag(endpoint: nil), method: "POST", path: "/_mock/faults", host: client.host,
                headers: [("Content-Type", "application/json")], body: Array(rule.utf8),
                intendedStart: MonotonicClock.now()))
        guard completion.status == 201 else { throw FixtureError(description: "fault refused: \(completion.outcome)") }
    }

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the fleet, then `--verify`.
    func runAndVerify(_ settings: LoadSettings) throws -> (LoadRunResult, LoadVerification) {
        let runner = try FleetRunner(settings: settings)
        let result = runner.run()
        return (result, try RunVerifier(settings: settings, result: result).verify())
    }
}
