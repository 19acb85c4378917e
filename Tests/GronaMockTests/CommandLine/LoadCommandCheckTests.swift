import Foundation
import GronaMock
import GronaMockJSON
import GronaMockTestSupport
import Testing

/// `grona-mock load` after a fresh-eyes run: what it checks before the load (so that nothing fails only
/// after minutes of it), what it prints, how a run is repeated, and Ctrl-C.
@Suite("grona-mock load: checks, repeats and Ctrl-C")
struct LoadCommandCheckTests {
    /// The run's stored events, eventID → type, from a grona-mock's `shop` workspace (one page: small runs).
    static func storedEvents(_ port: Int) throws -> [String: String] {
        let response = try fetch(port, Control.request("GET", "/_mock/events?workspace=shop&limit=1000"))
        let page = try JSONParser().parse(Array(response.body))
        #expect(page["nextCursor"]?.isNull ?? true)
        var events: [String: String] = [:]
        for event in page["events"]?.arrayValue ?? [] {
            guard let id = event["eventID"]?.stringValue, let type = event["type"]?.stringValue else { continue }
            events[id] = type
        }
        return events
    }

    /// Without --secret-key: whether an offer shows depends on when a grant's answer arrives, which no seed
    /// decides.
    static func repeatableRun(_ port: Int) throws -> BinaryRunner.Result {
        try BinaryRunner.run([
            "load", "--url", "http://127.0.0.1:\(port)", "--workspace", "shop", "--installs", "10", "--rate", "40",
            "--duration", "1s", "--batch-size", "10", "--batch-age", "200ms", "--seed", "7", "--run-tag", "again",
            "--quiet",
        ])
    }

    @Test("--seed and --run-tag make two runs against two fresh servers send the same events")
    func repeatable() throws {
        let first = try MockFixture.standard().withServer { server in
            let result = try Self.repeatableRun(server.port)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            return try Self.storedEvents(server.port)
        }
        let second = try MockFixture.standard().withServer { server in
            let result = try Self.repeatableRun(server.port)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            return try Self.storedEvents(server.port)
        }
        #expect(!first.isEmpty)
        #expect(first.keys.allSatisfy { $0.hasPrefix("again-") })
        #expect(first == second)
    }

    @Test("a bad --run-tag is a usage error", arguments: ["", "UPPER", "has space", "seventeen-chars-x"])
    func badRunTag(tag: String) throws {
        let result = try BinaryRunner.run(["load", "--run-tag", tag, "--url", "http://127.0.0.1:1"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--run-tag must be"), "stderr: \(result.stderr)")
    }

    @Test("a --json file that cannot be written is refused before any request")
    func unwritableJSON() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let result = try LoadCommandTests.load(server.port, ["--json", "/nonexistent-dir/report.json"])
            #expect(result.status == 64, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
            #expect(result.stderr.contains("/nonexistent-dir/report.json"))
            #expect(result.stdout.isEmpty)
            let metrics = try fetch(server.port, "GET /_mock/metrics HTTP/1.1\r\nHost: x\r\n\r\n").text
            #expect(!metrics.contains("route=\"/v1/mobile/events\""))
        }
    }

    /// A server with an admin token: --verify without one, or with a wrong one, is found out before the run,
    /// with different advice.
    @Test(
        "--verify with a missing or refused admin token exits 64 before the run",
        arguments: [([], "give --admin-token"), (["--admin-token", "wrong"], "refused the admin token")])
    func verifyToken(options: [String], message: String) throws {
        let fixture = try MockFixture.standard()
        var configuration = fixture.configuration()
        configuration.adminToken = "right-token"
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        let result = try LoadCommandTests.load(server.port, ["--verify"] + options)
        #expect(result.status == 64, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("--verify: --verify"))
        #expect(result.stdout.isEmpty, "no load, no report")
    }

    @Test("--url with a password is refused without printing it")
    func urlWithPassword() throws {
        let result = try BinaryRunner.run(["load", "--url", "http://user:hunter2@127.0.0.1:1"])
        #expect(result.status == 64)
        #expect(!result.stderr.contains("hunter2"))
        #expect(result.stderr.contains("***@127.0.0.1:1"), "stderr: \(result.stderr)")
    }

    @Test("a bad GRONA_MOCK_URL names the variable")
    func badEnvironmentURL() throws {
        let result = try BinaryRunner.run(["load"], environment: ["GRONA_MOCK_URL": "ftp://x"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("GRONA_MOCK_URL must be"), "stderr: \(result.stderr)")
    }

    @Test("--ramp-from without --ramp is a usage error; a ramp longer than the run is warned about")
    func rampOptions() throws {
        let alone = try BinaryRunner.run(["load", "--ramp-from", "5", "--url", "http://127.0.0.1:1"])
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--ramp-from needs --ramp"), "stderr: \(alone.stderr)")
        let long = try BinaryRunner.run([
            "load", "--ramp", "2m", "--duration", "30s", "--url", "http://127.0.0.1:1", "--quiet",
        ])
        #expect(long.status == 1, "nothing listens there")
        #expect(long.stderr.contains("warning: --ramp 2m00s is longer than --duration 30s"), "\(long.stderr)")
    }

    @Test("the start line is not printed with --quiet, and writes its duration as the progress line does")
    func startLine() throws {
        let quiet = try BinaryRunner.run(["load", "--url", "http://[::1]:1", "--quiet"])
        #expect(!quiet.stderr.contains("installs at"), "stderr: \(quiet.stderr)")
        #expect(quiet.stderr.contains("http://[::1]:1 is unreachable"), "stderr: \(quiet.stderr)")
        let loud = try BinaryRunner.run(["load", "--url", "http://127.0.0.1:1", "--duration", "120"])
        #expect(loud.status == 1)
        #expect(loud.stderr.contains("for 2m00s against http://127.0.0.1:1"), "stderr: \(loud.stderr)")
    }
}
