import Foundation
import GronaMock
import GronaMockJSON
import GronaMockTestSupport
import Testing

/// `grona-mock load` as a CI job runs it: the built binary against a live grona-mock, judged by its exit status
/// and what it prints. The fleet's behaviour itself is tested in GronaMockLoadTests; here, what a pipeline
/// relies on: a broken threshold, a failed verification and a bad expression each give their own status.
@Suite("grona-mock load")
struct LoadCommandTests {
    /// A short, small run against `port`'s `shop` workspace, with its secret key for grants.
    static func load(_ port: Int, _ options: [String]) throws -> BinaryRunner.Result {
        try BinaryRunner.run(
            [
                "load", "--url", "http://127.0.0.1:\(port)", "--workspace", "shop", "--installs", "10", "--rate",
                "40", "--duration", "1s", "--batch-size", "10", "--batch-age", "200ms", "--seed", "7", "--quiet",
                "--secret-key", "sk_test_shop_secret",
            ] + options)
    }

    @Test("a run that keeps its thresholds and verifies exits 0, and --json - is JSON alone on stdout")
    func passingRun() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let result = try Self.load(
                server.port,
                ["--verify", "--threshold", "errors.rate<0.01", "--threshold", "events.p99<60s", "--json", "-"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let report = try JSONParser().parse(Array(result.stdout.utf8))
            #expect(report["passed"]?.boolValue == true)
            #expect(report["verify"]?["passed"]?.boolValue == true)
            let acknowledged = report["events"]?["acknowledged"]?.int64Value ?? 0
            #expect(acknowledged > 0)
            #expect(report["verify"]?["stored"]?.int64Value == acknowledged)
            #expect(
                result.stderr.contains("PASS  errors.rate<0.01"), "the text report goes to stderr: \(result.stderr)")
        }
    }

    @Test("a broken threshold exits 99 and says which")
    func brokenThreshold() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let result = try Self.load(
                server.port, ["--threshold", "events.p99<1us", "--threshold", "errors.rate<0.5"])
            #expect(result.status == 99, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
            #expect(result.stdout.contains("FAIL  events.p99<1us"))
            #expect(result.stdout.contains("PASS  errors.rate<0.5"))
        }
    }

    /// The issue's lost acknowledgement: every events answer is cut short after the batch was stored, and the
    /// fleet may not retry, so the server holds events the run never saw acknowledged.
    @Test("--verify catches events stored but never acknowledged, and exits 98")
    func lostAcknowledgement() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let fault = #"{"endpoint": "events", "kind": "truncate", "afterBytes": 1, "count": 1000}"#
            let added = try fetch(server.port, Control.request("POST", "/_mock/faults", body: fault))
            #expect(added.status == 201)
            let result = try Self.load(server.port, ["--verify", "--max-retries", "0", "--json", "-"])
            #expect(result.status == 98, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
            let verify = try JSONParser().parse(Array(result.stdout.utf8))["verify"]
            #expect(verify?["passed"]?.boolValue == false)
            #expect((verify?["unacknowledged"]?.int64Value ?? 0) > 0)
            #expect(verify?["lost"]?.int64Value == 0)
            let sample = verify?["sampleUnacknowledged"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(!sample.isEmpty, "the report names some of them")
            #expect(result.stderr.contains("verify      FAIL"), "stderr: \(result.stderr)")
        }
    }

    @Test(
        "a bad threshold is a usage error (exit 64) that names it, before any request",
        arguments: ["events.p99<10", "event.p99<10ms", "errors.rate<<0.1", "verify.lost<1"])
    func badThreshold(expression: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let result = try Self.load(server.port, ["--threshold", expression])
            #expect(result.status == 64)
            #expect(result.stderr.contains(expression), "stderr: \(result.stderr)")
            let metrics = try fetch(server.port, "GET /_mock/metrics HTTP/1.1\r\nHost: x\r\n\r\n").text
            #expect(!metrics.contains("route=\"/v1/mobile/workspaces/{workspaceKey}/jwks.json\""))
        }
    }
}
