import Foundation
import GronaMock
import GronaMockJSON
import GronaMockTestSupport
import Testing

/// `grona-mock load --shard`, `load merge` and `load --replay` as a CI job runs them: the built binary against a
/// live grona-mock, judged by exit status, report and what `--verify` finds.
@Suite("grona-mock load: shards, merge and replay")
struct LoadShardCommandTests {
    final class Scratch {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("grona-shards-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    }

    /// Shard `shard` of a short run of 11 installs against `port`'s `shop` workspace, with one tag and seed.
    static func shard(_ port: Int, _ shard: String, _ options: [String], environment: [String: String] = [:]) throws
        -> BinaryRunner.Result
    {
        try BinaryRunner.run(
            [
                "load", "--url", "http://127.0.0.1:\(port)", "--workspace", "shop", "--installs", "11", "--rate",
                "40", "--duration", "1s", "--batch-size", "10", "--batch-age", "200ms", "--seed", "7", "--quiet",
                "--secret-key", "sk_test_shop_secret", "--run-tag", "shards-test",
            ] + (shard.isEmpty ? [] : ["--shard", shard]) + options, environment: environment)
    }

    @Test(
        "a shard the options cannot make is a usage error (exit 64) that says why",
        arguments: [
            (["--shard", "2/2"], [:], "must be below 2"),
            (["--shard", "0/12"], [:], "12 shards need at least 12 installs"),
            (["--shard", "one/2"], [:], "--shard must be I/N"),
            (["--shards", "2"], [:], "needs this shard's index"),
            ([], ["JOB_COMPLETION_INDEX": "1"], "give the number of shards"),
            (["--shards", "3"], ["JOB_COMPLETION_INDEX": "3"], "must be below 3"),
            (["--replay", "x.ndjson", "--shard", "0/2"], [:], "takes no --shard"),
            (["--speed", "2"], [:], "--speed goes with --replay"),
            (["--replay", "/dev/null"], [:], "--installs does not apply to --replay"),
        ] as [([String], [String: String], String)])
    func badShard(options: [String], environment: [String: String], message: String) throws {
        let result = try Self.shard(1, "", options, environment: environment)
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }

    @Test("a shard without --run-tag is refused: the shards of one run share it")
    func shardNeedsRunTag() throws {
        let result = try BinaryRunner.run(["load", "--shard", "0/2", "--url", "http://127.0.0.1:1"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("a shard needs --run-tag"), "stderr: \(result.stderr)")
    }

    @Test("two shards each verify their own installs, and their merge verifies the whole run with 0 lost")
    func twoShardsMergeAndVerify() throws {
        let scratch = try Scratch()
        try MockFixture.standard().withServer { server in
            let first = try Self.shard(server.port, "0/2", ["--verify", "--json", scratch.path("0.json")])
            #expect(first.status == 0, "stdout: \(first.stdout)\nstderr: \(first.stderr)")
            // The second from the environment, as a Kubernetes Indexed Job's pod.
            let second = try Self.shard(
                server.port, "", ["--verify", "--json", scratch.path("1.json")],
                environment: ["JOB_COMPLETION_INDEX": "1", "GRONA_MOCK_LOAD_SHARDS": "2"])
            #expect(second.status == 0, "stdout: \(second.stdout)\nstderr: \(second.stderr)")
            #expect(second.stdout.contains("shard 1/2: installs 6 to 10 of 11"), "\(second.stdout)")

            let merged = try BinaryRunner.run(
                [
                    "load", "merge", scratch.path("0.json"), scratch.path("1.json"), "--verify", "--threshold",
                    "errors.rate<0.01", "--json", "-",
                ])
            #expect(merged.status == 0, "stdout: \(merged.stdout)\nstderr: \(merged.stderr)")
            let report = try JSONParser().parse(Array(merged.stdout.utf8))
            let shards = try [0, 1].map {
                try JSONParser().parse(Array(try Data(contentsOf: scratch.url.appendingPathComponent("\($0).json"))))
            }
            let acknowledged = shards.map { $0["events"]?["acknowledged"]?.int64Value ?? 0 }.reduce(0, +)
            #expect(acknowledged > 0)
            #expect(report["events"]?["acknowledged"]?.int64Value == acknowledged)
            #expect(report["verify"]?["stored"]?.int64Value == acknowledged)
            #expect(report["verify"]?["lost"]?.int64Value == 0)
            #expect(report["run"]?["installs"]?.int64Value == 11)
            #expect(report["mergedShards"]?.int64Value == 2)

            let missing = try BinaryRunner.run(["load", "merge", scratch.path("1.json")])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("shard 0/2 of run shards-test is missing"), "\(missing.stderr)")
            let notAReport = try BinaryRunner.run(["load", "merge", scratch.path("0.json"), "/dev/null"])
            #expect(notAReport.status == 1)
            #expect(notAReport.stderr.contains("/dev/null"), "\(notAReport.stderr)")
        }
    }

    @Test("an export replayed twice verifies each time; a bad line sends nothing unless --skip-bad")
    func replayOfAnExport() throws {
        let scratch = try Scratch()
        try MockFixture.standard().withServer { server in
            let fleet = try Self.shard(server.port, "", [])
            #expect(fleet.status == 0, "stderr: \(fleet.stderr)")
            let export = try EventExportTests.export(server.port, "/_mock/events/export?workspace=shop")
            #expect(export.status == 200)
            let text = String(decoding: export.body, as: UTF8.self)
            let lines = text.split(separator: "\n")
            #expect(!lines.isEmpty)
            try text.write(toFile: scratch.path("export.ndjson"), atomically: true, encoding: .utf8)
            for _ in 0..<2 {
                let replay = try BinaryRunner.run(
                    [
                        "load", "--url", "http://127.0.0.1:\(server.port)", "--workspace", "shop", "--replay",
                        scratch.path("export.ndjson"), "--speed", "4", "--batch-age", "200ms", "--verify", "--quiet",
                        "--json", "-",
                    ])
                #expect(replay.status == 0, "stdout: \(replay.stdout)\nstderr: \(replay.stderr)")
                let report = try JSONParser().parse(Array(replay.stdout.utf8))
                #expect(report["events"]?["acknowledged"]?.int64Value == Int64(lines.count))
                #expect(report["verify"]?["stored"]?.int64Value == Int64(lines.count))
            }
            let bad = lines.prefix(3).joined(separator: "\n") + "\n{\"eventID\": nope\n" + lines[0] + "\n"
            try bad.write(toFile: scratch.path("bad.ndjson"), atomically: true, encoding: .utf8)
            let before = try fetch(
                server.port, "GET /_mock/events?workspace=shop&limit=1000 HTTP/1.1\r\nHost: x\r\n\r\n"
            ).text
            let refused = try BinaryRunner.run(
                [
                    "load", "--url", "http://127.0.0.1:\(server.port)", "--workspace", "shop", "--replay",
                    scratch.path("bad.ndjson"), "--quiet",
                ])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("line 4: not JSON"), "\(refused.stderr)")
            let after = try fetch(
                server.port, "GET /_mock/events?workspace=shop&limit=1000 HTTP/1.1\r\nHost: x\r\n\r\n"
            ).text
            #expect(before == after, "nothing was sent")
            let skipped = try BinaryRunner.run(
                [
                    "load", "--url", "http://127.0.0.1:\(server.port)", "--workspace", "shop", "--replay",
                    scratch.path("bad.ndjson"), "--skip-bad", "--speed", "100", "--batch-age", "100ms", "--quiet",
                    "--json", "-",
                ])
            #expect(skipped.status == 0, "stderr: \(skipped.stderr)")
            let report = try JSONParser().parse(Array(skipped.stdout.utf8))
            #expect(report["replay"]?["badLines"]?.int64Value == 1)
            #expect(report["events"]?["acknowledged"]?.int64Value == 4)
            // The report for people says what was replayed, not a fleet's rate (it said "0 visits/s").
            let forPeople = try BinaryRunner.run(
                [
                    "load", "--url", "http://127.0.0.1:\(server.port)", "--workspace", "shop", "--replay",
                    scratch.path("bad.ndjson"), "--skip-bad", "--speed", "100", "--batch-age", "100ms", "--quiet",
                ])
            #expect(forPeople.status == 0, "stderr: \(forPeople.stderr)")
            let named = "replay of \(scratch.path("bad.ndjson")): 4 events of "
            #expect(forPeople.stdout.contains(named), "\(forPeople.stdout)")
            #expect(forPeople.stdout.components(separatedBy: "replay of ").count == 2, "\(forPeople.stdout)")
            #expect(forPeople.stdout.contains("at speed 100, 1 bad lines skipped"), "\(forPeople.stdout)")
            #expect(!forPeople.stdout.contains("visits/s"), "\(forPeople.stdout)")
        }
    }
}
