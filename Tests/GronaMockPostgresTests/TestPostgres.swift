import Foundation
import Testing

@testable import GronaMockPostgres

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The PostgreSQL the tests use: `GRONA_MOCK_TEST_POSTGRES` when it names one, otherwise a throwaway
/// cluster started through `Examples/cluster/pg-throwaway` on first use and stopped when the test process exits.
/// Each test gets a schema of its own on it, so tests run in parallel without seeing each other's rows.
enum TestPostgres {
    static let variable = "GRONA_MOCK_TEST_POSTGRES"

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/cluster/pg-throwaway").path

    /// Whether the suite can run: a database is named, or PostgreSQL's server programs are installed.
    static let isAvailable: Bool =
        ProcessInfo.processInfo.environment[variable] != nil || (try? runScript(["check"])) != nil

    static let unavailableReason: Comment =
        "PostgreSQL is not installed (no initdb; apt-get install postgresql) and \(variable) is not set"

    /// The shared cluster's URL, started once for the whole process.
    private static let shared: Result<String, ScriptFailure> = {
        if let url = ProcessInfo.processInfo.environment[variable] { return .success(url) }
        do {
            let cluster = try TestCluster()
            clusterToStop = cluster.directory
            atexit {
                // At exit Foundation may be half torn down: system(3) is enough to run the script.
                guard let directory = clusterToStop else { return }
                _ = system("'\(TestPostgres.script)' stop '\(directory)' >/dev/null 2>&1")
            }
            return .success(cluster.url)
        } catch let error as ScriptFailure {
            return .failure(error)
        } catch {
            return .failure(ScriptFailure(description: "\(error)"))
        }
    }()

    /// A URL on the shared cluster whose tables live in a new, empty schema (its `search_path`).
    static func freshURL() throws -> String {
        try withSchema(on: try shared.get())
    }

    /// `url` with a new, empty schema of its own.
    static func withSchema(on url: String) throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().filter { $0 != "-" }
        try connect(url).execute("CREATE SCHEMA \(name)")
        return url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)"
    }

    /// A connection of the test's own, to look at what the storage wrote.
    static func connect(_ url: String) throws -> PostgresConnection {
        guard let parsed = PostgresURL(url) else { throw ScriptFailure(description: "not a PostgreSQL URL: \(url)") }
        return try PostgresConnection(parameters: parsed.connectionParameters)
    }

    /// Runs the script; what it printed, trimmed, or its failure with what it printed. Through popen(3),
    /// which waits for the child itself: Foundation's `Process` was seen missing the exit of two scripts run
    /// at once by parallel tests, and waiting forever.
    @discardableResult
    static func runScript(_ arguments: [String]) throws -> String {
        let command = ([script] + arguments).map { "'\($0)'" }.joined(separator: " ") + " 2>&1"
        guard let pipe = popen(command, "r") else {
            throw ScriptFailure(description: "pg-throwaway could not be run")
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            guard count > 0 else { break }
            output += buffer[0..<count]
        }
        let status = pclose(pipe)
        let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0 else {
            throw ScriptFailure(description: "pg-throwaway \(arguments.joined(separator: " ")): \(text)")
        }
        return text
    }

    /// Set once, before the exit handler can run; read only by it.
    nonisolated(unsafe) private static var clusterToStop: String?
}

/// A throwaway cluster started through the script; `stop()` removes it (the shared one is removed at exit).
final class TestCluster {
    private(set) var url: String
    /// The cluster's directory: the URL's `host` parameter.
    let directory: String
    private var stopped = false

    init() throws {
        url = try TestPostgres.runScript(["start"])
        guard let host = url.split(separator: "?").last?.split(separator: "&").first(where: { $0.hasPrefix("host=") })
        else { throw ScriptFailure(description: "no host in \(url)") }
        directory = String(host.dropFirst("host=".count))
    }

    func pause() throws { try TestPostgres.runScript(["pause", directory]) }

    func resume() throws { url = try TestPostgres.runScript(["resume", directory]) }

    func stop() {
        guard !stopped else { return }
        stopped = true
        _ = try? TestPostgres.runScript(["stop", directory])
    }
}

struct ScriptFailure: Error, CustomStringConvertible {
    let description: String
}
