import GronaMockJSON
import GronaMockLoad
import GronaMockPlatform

/// `grona-mock load merge`: the `--json` reports of a sharded run's shards (`grona-mock load --shard I/N`) added
/// up into the report of the whole run (`ShardMerge`), with thresholds and `--verify` as `load` has them.
/// Exit status: 0 passed, 1 the reports could not be merged (unreadable, not shards of one run, a shard missing
/// or given twice) or `--verify` could not check the run, 64 usage, 98 `--verify` failed, 99 a threshold broke.
enum LoadMergeCommand {
    static let specs: [OptionSpec] = [
        .value(
            "threshold", "EXPR",
            help: "Repeatable, as for load (events.p99<10ms), measured on the merged run; one not kept exits 99."),
        .flag("verify", help: "Check the whole run's acknowledged events and violations against the grona-mock."),
        .value(
            "url", "URL", environment: "GRONA_MOCK_URL",
            help: "The grona-mock --verify asks (default: the URL the shards ran against)."),
        .value(
            "admin-token", "TOKEN", environment: "GRONA_MOCK_ADMIN_TOKEN", help: "For --verify's /_mock calls."),
        .value("timeout", "D", default: "10s", help: "Per request of --verify."),
        .value("json", "FILE", help: "Write the merged report as JSON (- for stdout)."),
    ]

    static let usage = """
        USAGE: grona-mock load merge REPORT... [options]

        Merges the --json reports of the shards of one run (grona-mock load --shard I/N --run-tag TAG, or a
        Kubernetes Indexed Job) into the report of the whole run: counts summed, latency histograms added
        counter by counter (so percentiles are exact, as one generator would have measured them), the run's
        time from the first shard's start to the last one's end. Every shard of the run must be given once;
        reports of another run (tag, workspace, shard count or fleet) are refused, naming the file.

        Exit status: 0 passed; 1 the reports could not be merged (or --verify could not check the run);
        64 usage; 98 --verify found lost, doubled or unacknowledged events, or violations; 99 a threshold broke.

        OPTIONS:
        \(ParsedOptions.help(for: specs))
        """

    /// A report is at most this large: a shard of a million installs writes about 20 MiB.
    static let maximumReportBytes = 512 * 1024 * 1024

    static func run(_ arguments: [String], _ environment: [String: String]) -> Int32 {
        let parsed: ParsedOptions
        let thresholds: [Threshold]
        do {
            parsed = try ParsedOptions.parse(arguments, specs: specs, environment: environment, maxPositionals: 100_000)
            if parsed.wantsHelp {
                Console.out(usage)
                return 0
            }
            try requireReports(parsed)
            thresholds = try parsed.allValues("threshold").map { expression throws(UsageError) in
                do {
                    return try Threshold(parsing: expression, verifyEnabled: parsed.flag("verify"))
                } catch {
                    throw UsageError("\(error)")
                }
            }
            if let path = parsed.value("json"), path != "-" { try LoadCommand.checkWritable(path) }
        } catch {
            Console.error(
                "grona-mock load merge: \(error.message)\nRun 'grona-mock load merge --help' for the options.")
            return ExitCode.usage.rawValue
        }
        let merge: ShardMerge
        do {
            var reports: [ShardReport] = []
            for path in parsed.positionals { reports.append(try read(path)) }
            merge = try ShardMerge(reports)
        } catch let failure as MergeFailure {
            Console.error("grona-mock load merge: \(failure.message)")
            return ExitCode.failure.rawValue
        } catch {
            Console.error("grona-mock load merge: \(error)")
            return ExitCode.failure.rawValue
        }
        var verification: LoadVerification?
        if parsed.flag("verify") {
            do {
                verification = try verify(merge, parsed)
            } catch let error as UsageError {
                Console.error("grona-mock load merge: \(error.message)")
                return ExitCode.usage.rawValue
            } catch {
                Console.error("grona-mock load merge: --verify could not check the run: \(error)")
                return ExitCode.failure.rawValue
            }
        }
        return LoadCommand.write(
            merge.report(verification: verification, evaluating: thresholds), jsonPath: parsed.value("json"))
    }

    private static func requireReports(_ parsed: ParsedOptions) throws(UsageError) {
        guard !parsed.positionals.isEmpty else { throw UsageError("give the shards' reports (REPORT...)") }
    }

    /// A report file read and checked, or why not, naming the file.
    private static func read(_ path: String) throws(MergeFailure) -> ShardReport {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path, maxBytes: maximumReportBytes)
        } catch {
            throw MergeFailure("cannot read \(path): \(error)")
        }
        guard let json = try? JSONParser().parse(bytes) else { throw MergeFailure("\(path) is not JSON") }
        do {
            return try ShardReport(json: json, source: path)
        } catch {
            throw MergeFailure("\(path): \(error)")
        }
    }

    /// `--verify` for the whole run: the shards' ledgers together, as one run of the whole fleet.
    private static func verify(_ merge: ShardMerge, _ parsed: ParsedOptions) throws -> LoadVerification {
        var settings = LoadSettings()
        do {
            (settings.host, settings.port) = try LoadSettings.target(parsed.value("url") ?? merge.run.url)
            settings.timeout = try LoadSettings.duration(parsed.value("timeout") ?? "10s", option: "timeout")
            if let token = parsed.value("admin-token") {
                settings.adminToken = try LoadSettings.credential(token, option: "admin-token")
            }
        } catch {
            throw UsageError(error.description)
        }
        settings.workspace = merge.run.workspace
        settings.installs = merge.run.installs
        settings.runTag = merge.result.runTag
        do {
            try RunVerifier.checkAvailable(settings)
        } catch {
            if error.isUsage { throw UsageError(error.description) }
            throw error
        }
        let (found, sample) = try RunVerifier(settings: settings, result: merge.result).verifyWithSamples()
        var verification = found
        verification.sampleUnacknowledged = sample
        return verification
    }
}

/// Why the reports could not be merged: one sentence that names the file.
struct MergeFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
