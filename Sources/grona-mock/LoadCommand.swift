import GronaMock
import GronaMockLoad
import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `grona-mock load`: a simulated SDK fleet against any service that speaks the contract (issue 14).
/// Exit status: 0 passed, 1 the run could not be made, 64 usage (sysexits.h, as every command), 98 `--verify`
/// failed, 99 a threshold broke.
enum LoadCommand {
    static let specs: [OptionSpec] =
        [
            .value(
                "url", "URL", environment: "GRONA_MOCK_URL", default: "http://127.0.0.1:8080",
                help: "Base URL of the service under test: http:// or https:// (TLS 1.2 or 1.3, the server verified)."),
            .value(
                "cacert", "FILE",
                help: "For https://: trust the CA certificates of this PEM file instead of the system's (grona-mock's "
                    + "own CA: tls/ca.pem of `grona-mock tls`)."),
            .value("workspace", "KEY", default: "acme-market", help: "Workspace the fleet belongs to."),
            .value("installs", "N", default: "100", help: "Simulated installs (1 to 1000000)."),
            .value("rate", "R", default: "20", help: "Visits per second, fleet-wide (decimals allowed)."),
            .value("ramp", "D", default: "0s", help: "Climb linearly from --ramp-from to --rate over D, then hold."),
            .value("ramp-from", "R", default: "0", help: "Visits per second at the start of the ramp."),
            .value("duration", "D", default: "10s", help: "How long visits are started; then the drain (see below)."),
            .value("drain", "D", default: "30s", help: "After --duration, how long answers and retries are awaited."),
            .value("seed", "N", help: "Makes installs, visits and jitter reproducible (default: drawn, and printed)."),
            .value(
                "run-tag", "TAG",
                help: "Prefix of the run's install and event ids ([a-z0-9-]{1,16}; default: drawn). With the same "
                    + "--seed, a fresh server gets the same installs, visits and events."),
            .value("batch-size", "N", default: "50", help: "Events per batch, the SDK's size limit (1 to 500)."),
            .value("batch-age", "D", default: "2s", help: "A batch is sent when its oldest event is this old."),
            .value(
                "max-in-flight", "N", default: "256", help: "Requests in flight at most; a visit due then is dropped."),
            .value("timeout", "D", default: "10s", help: "Per request."),
            .value("max-retries", "N", default: "5", help: "Retries per batch (exponential backoff, full jitter)."),
            .value("retry-base", "D", default: "250ms", help: "The first backoff; it doubles up to 30s."),
            .value("identified", "F", default: "0.5", help: "Share of installs with a customer id."),
            .value(
                "secret-key", "KEY", environment: "GRONA_MOCK_SECRET_KEY",
                help: "The workspace's secret key, for grants; without it no offer is shown."),
            .value("offline", "F:D", help: "Share F of installs goes offline once, for D, then flushes its backlog."),
            .flag("no-gzip", help: "Send batches uncompressed."),
            .flag("verify", help: "After the run, check the stored events and the violations (a grona-mock only)."),
            .value(
                "admin-token", "TOKEN", environment: "GRONA_MOCK_ADMIN_TOKEN", help: "For --verify's /_mock calls."),
            .value("json", "FILE", help: "Write the whole report as JSON (- for stdout)."),
            .value(
                "threshold", "EXPR",
                help: "Repeatable, k6 style (events.p99<10ms); one not kept exits 99, a malformed one exits 64."),
            .flag("quiet", help: "No progress line."),
        ] + shardSpecs + replaySpecs

    static let usage = """
        USAGE: grona-mock load [options]
               grona-mock load merge REPORT... [options]   (shards' --json reports; see load merge --help)

        Drives a fleet of simulated SDK installs at URL: each fetches and verifies the signed configuration,
        polls it with If-None-Match, runs visits whose events follow assignment and the funnel, fetches grants,
        and sends its events in gzipped batches with retries. Visits start at --rate whatever the answers (an
        open model); latency counts from each request's intended start.

        At the end of --duration no visit starts: every install sends what it holds at once, and answers and
        retries are awaited for at most --drain; events still unsent then are counted as unsent. Ctrl-C stops
        early: the same, for at most 3s, then the report of what ran (exit 130); a second Ctrl-C quits at once.

        An https:// URL speaks TLS 1.2 or 1.3 and verifies the server: its certificate against the system trust
        store, or against --cacert FILE instead, and its name against the URL's host (sent as SNI unless it is
        an IP address). A failed handshake counts as tls_unknown_ca, tls_name_mismatch, tls_certificate or
        tls_handshake; before the first visit it stops the run (exit 1).

        Durations: 500ms, 10s, 2m, or a number of seconds (up to a day).
        Exit status: 0 passed; 1 the run could not be made (or --verify could not check it); 64 usage;
        98 --verify found lost, doubled or unacknowledged events, or violations; 99 a threshold broke;
        130 interrupted.

        OPTIONS:
        \(ParsedOptions.help(for: specs))
        """

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        if arguments.first == "merge" { return LoadMergeCommand.run(Array(arguments.dropFirst()), environment) }
        let settings: LoadSettings
        let thresholds: [Threshold]
        do {
            let parsed = try ParsedOptions.parse(arguments, specs: specs, environment: environment)
            if parsed.wantsHelp {
                Console.out(usage)
                return 0
            }
            settings = try replayed(
                sharded(self.settings(from: parsed, arguments: arguments), parsed, environment: environment), parsed)
            if let refusal = replayRefusal(settings, skipBad: parsed.flag("skip-bad")) {
                Console.error("grona-mock load: \(refusal)")
                return ExitCode.failure.rawValue
            }
            thresholds = try settings.thresholds.map { expression throws(UsageError) in
                do {
                    return try Threshold(parsing: expression, verifyEnabled: settings.verify)
                } catch {
                    throw UsageError("\(error)")
                }
            }
            if let path = settings.jsonPath, path != "-" { try checkWritable(path) }
        } catch {
            Console.error("grona-mock load: \(error.message)\nRun 'grona-mock load --help' for the options.")
            return ExitCode.usage.rawValue
        }
        for warning in warnings(for: settings) { Console.error("grona-mock load: warning: \(warning)") }
        var description = self.description(of: settings)
        if let plan = settings.replay {
            // A replay keeps the file's pace, not a rate: the report says how long its events took to fall due.
            (description.rate, description.rampFrom, description.rampSeconds) = (0, 0, 0)
            description.durationSeconds = plan.durationSeconds
        }
        // From here Ctrl-C asks for a report (the run stops as soon as its loop starts, after the checks
        // below, which are bounded by --timeout); a second one quits.
        LoadInterrupt.install()
        if !settings.quiet {
            Console.error(settings.replay.map { replayStartLine(settings, $0) } ?? startLine(settings))
        }
        let runner: FleetRunner
        do {
            runner = try FleetRunner(settings: settings)
            if settings.verify { try RunVerifier.checkAvailable(settings) }
        } catch let error as VerifyUnavailable {
            Console.error("grona-mock load: \(error)")
            return error.isUsage ? ExitCode.usage.rawValue : 1
        } catch {
            Console.error("grona-mock load: \(error)")
            return 1
        }
        let mode = ProgressMode.current(quiet: settings.quiet, environment: environment)
        var ticker = ProgressTicker(mode: mode, run: description)
        runner.onProgress { progress in
            if let line = ticker.text(for: progress) { Console.error(line, newline: false) }
        }
        var announced = false
        runner.stopWhen {
            guard LoadInterrupt.isRequested else { return false }
            if !announced {
                announced = true
                Console.error(
                    mode.clearLine + "grona-mock load: interrupted: no more visits; sending what is pending for at "
                        + "most \(clock(settings.interruptDrainLimit)) (interrupt again to quit now)")
            }
            return true
        }
        let result = runner.run()
        if !mode.clearLine.isEmpty { Console.error(mode.clearLine, newline: false) }
        var verification: LoadVerification?
        var verifyError: String?
        if settings.verify && result.statistics.interrupted {
            verifyError = "--verify was skipped: the run was interrupted"
        } else if settings.verify {
            do {
                let (found, sample) = try RunVerifier(settings: settings, result: result).verifyWithSamples()
                verification = found
                verification?.sampleUnacknowledged = sample
            } catch {
                verifyError = "--verify could not check the run: \(error)"
            }
        }
        var report = LoadReport(
            run: description, statistics: result.statistics, elapsedSeconds: result.elapsedSeconds,
            verification: verification, evaluating: thresholds)
        report.replay = settings.replay
        (report.shard, report.ledger) = (
            settings.shard, settings.shard.map { RunLedger(firstInstall: $0.firstInstall, result: result) }
        )
        var status = write(report, jsonPath: settings.jsonPath)
        if let problem = runner.replayProblem {
            Console.error("grona-mock load: \(problem)")
            status = 1
        }
        if let verifyError {
            Console.error("grona-mock load: \(verifyError)")
            status = 1
        }
        return result.statistics.interrupted ? LoadInterrupt.exitStatus : status
    }

    /// Prints the text report, and writes the JSON one where `--json` says: with `--json -` the JSON goes to
    /// standard output alone and the text to standard error, so that a pipe gets JSON it can parse.
    static func write(_ report: LoadReport, jsonPath: String?) -> Int32 {
        switch jsonPath {
        case "-"?:
            Console.error(report.text)
            Console.out(report.jsonText)
        case let path?:
            Console.out(report.text)
            do {
                try FileSystem.write(Array((report.jsonText + "\n").utf8), to: path)
            } catch {
                Console.error("grona-mock load: cannot write the JSON report to \(path): \(error)")
                return 1
            }
        case nil:
            Console.out(report.text)
        }
        return report.verdict.exitStatus
    }

    /// The run as the report repeats it: no secret key and no admin token.
    private static func description(of settings: LoadSettings) -> LoadRunDescription {
        LoadRunDescription(
            url: settings.url, workspace: settings.workspace, installs: settings.installs, rate: settings.rate,
            rampFrom: settings.rampFrom, rampSeconds: settings.ramp.seconds,
            durationSeconds: settings.duration.seconds, seed: settings.seed, batchSize: settings.batchSize,
            batchAgeSeconds: settings.batchAge.seconds, maxInFlight: settings.maxInFlight, gzip: settings.gzip,
            offlineShare: settings.offlineShare, offlineSeconds: settings.offlineDuration.seconds,
            runTag: settings.runTag, version: GronaMockVersion.current)
    }
}
