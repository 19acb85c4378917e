import GronaMock
import GronaMockConformance
import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `grona-mock conformance --service URL`: grades an SDK through its test service (docs/conformance.md). It
/// starts a mock of its own (loopback, a free port, a throw-away database, fresh keys), runs the built-in
/// catalogue and `--scenarios`, one isolated workspace per test, one after another, prints a line per test
/// and a summary, and exits 0 only when no test failed.
enum ConformanceCommand {
    static let options: [OptionSpec] = [
        .value(
            "service", "URL", environment: "GRONA_CONFORMANCE_SERVICE",
            help: "The test service, http://HOST:PORT (docs/conformance/service-protocol.md)."),
        .value("run", "PATTERN", help: "Run only the tests whose name (area/scenario) matches; repeatable."),
        .value("skip", "PATTERN", help: "Skip the tests whose name matches; repeatable."),
        .value("scenarios", "DIR", help: "Also run the scenarios of DIR (*.json; docs/conformance.md)."),
        .flag("no-catalogue", help: "Run only the --scenarios, not the built-in catalogue."),
        .value("junit", "FILE", help: "Write JUnit XML: a <testcase> per scenario, its area as classname."),
        .value("json", "FILE", help: "Write the JSON report (docs/conformance/schemas/report.schema.json)."),
        .flag("list", help: "List the tests the filters take, with what each checks, and exit."),
        .value("keys", "DIR", help: "Also load the keys of DIR (<kid>.pem), for scenarios that name their own."),
        .value(
            "port", "PORT", default: "0",
            help: "The mock's port on 127.0.0.1 (0: a free one); its dashboard shows the run at /_mock/ui."),
        .value("timeout", "SECONDS", default: "30", help: "How long a request to the test service may take."),
        .flag("stay", help: "After the run, keep the mock and its dashboard up until interrupted (Ctrl-C)."),
    ]

    static let usage = """
        USAGE: grona-mock conformance --service URL [--run PATTERN]... [--skip PATTERN]... [options]

        Grades an SDK against the Grona contract through its test service: for each scenario of the built-in
        catalogue (and of --scenarios), the SDK client the service creates talks to a mock this command starts
        (127.0.0.1, a free port, a temporary database, fresh keys), one isolated workspace per test. Prints
        PASS, FAIL (with what was expected, what was observed and the requests that show it) or SKIPPED (a
        capability the service lacks) per test, then a summary. Exit status: 0 when no test failed, 1 when one
        did or the service could not be reached, 64 for a usage error or a scenario file with an error.

        Test names are area/scenario; --run and --skip take regular expressions searched for in the name
        (both repeatable: a test runs when it matches any --run and no --skip).

        OPTIONS:
        \(ParsedOptions.help(for: options))
          -h, --help          Show this help.

        EXAMPLES:
          grona-mock conformance --service http://127.0.0.1:8111 --junit conformance.xml
          grona-mock conformance --service http://127.0.0.1:8111 --run '^signatures/' --skip unknown-kid
          grona-mock conformance --list --run kills
        """

    static func run(_ arguments: [String], environment: [String: String]) -> ExitCode {
        let parsed: ParsedOptions
        switch CommonOptions.parse(
            arguments, specs: options, environment: environment, usage: usage, command: "conformance", maxPositionals: 0
        )
        {
        case .run(let options): parsed = options
        case .exit(let code): return code
        }
        let filter: TestFilter
        let timeout: Int
        let port: Int
        do throws(UsageError) {
            do {
                filter = try TestFilter(run: parsed.allValues("run"), skip: parsed.allValues("skip"))
            } catch {
                throw UsageError("--run/--skip: \(error)")
            }
            timeout = try parsed.integer("timeout", in: 1...3600) ?? 30
            port = try parsed.integer("port", in: 0...65535) ?? 0
            if !parsed.flag("list") && parsed.value("service") == nil {
                throw UsageError("--service URL is required: the test service to grade (or --list)")
            }
            if parsed.flag("no-catalogue") && parsed.value("scenarios") == nil {
                throw UsageError("--no-catalogue leaves nothing to run: add --scenarios DIR")
            }
        } catch {
            Console.error(
                "grona-mock conformance: \(error.message)\nRun 'grona-mock conformance --help' for the options.")
            return .usage
        }
        guard let scenarios = loadScenarios(parsed) else { return .usage }
        if parsed.flag("list") {
            for scenario in scenarios where filter.includes(scenario.testName) {
                Console.out("\(scenario.testName)\t\(scenario.description)")
            }
            return .success
        }
        guard let url = parsed.value("service"), let service = ServiceClient(url: url, timeoutSeconds: timeout) else {
            Console.error("grona-mock conformance: --service must be an http://HOST:PORT URL")
            return .usage
        }
        return serveAndRun(
            scenarios, filter: filter, service: service, parsed: parsed, port: port, environment: environment)
    }

    /// The catalogue and `--scenarios`, or nil after printing every file's problems.
    private static func loadScenarios(_ parsed: ParsedOptions) -> [Scenario]? {
        var scenarios: [Scenario] = []
        var errors: [ScenarioFileError] = []
        if !parsed.flag("no-catalogue") {
            let builtIn = Catalogue.builtIn()
            scenarios += builtIn.scenarios
            errors += builtIn.errors
        }
        if let directory = parsed.value("scenarios") {
            let own = Catalogue.load(directory: directory)
            scenarios += own.scenarios
            errors += own.errors
        }
        errors += Catalogue.duplicates(scenarios)
        guard errors.isEmpty else {
            for error in errors { Console.error(error.description) }
            Console.error("grona-mock conformance: \(errors.count) scenario file(s) refused; nothing was run")
            return nil
        }
        return scenarios
    }

    private static func serveAndRun(
        _ scenarios: [Scenario], filter: TestFilter, service: ServiceClient, parsed: ParsedOptions, port: Int,
        environment: [String: String]
    ) -> ExitCode {
        var signals = ServeCommand.blockSignals([SIGINT, SIGTERM, SIGQUIT, SIGHUP])
        let temporary = environment["TMPDIR"] ?? "/tmp"
        _ = ScratchDirectory.removeStale(in: temporary)
        let scratch: ScratchDirectory
        do {
            scratch = try ScratchDirectory(in: temporary)
            _ = try ConformanceKeys.write(to: scratch.path)
            if let extra = parsed.value("keys") { try copyKeys(from: extra, to: scratch.path) }
        } catch {
            Console.error("grona-mock conformance: \(error)")
            return .failure
        }
        defer { scratch.remove() }
        let configuration = ServeCommand.scratchConfiguration(in: scratch.path, port: port)
        let server: GronaMockServer
        do {
            server = try GronaMockServer.start(configuration, logger: Logger(minimumLevel: .warning))
        } catch {
            Console.error("grona-mock conformance: \(error)")
            return .failure
        }
        defer {
            server.shutdown()
            server.wait()
        }
        let runner = ConformanceRunner(engine: server.engine, mockURL: server.url, service: service)
        let missing = runner.missingKeys
        guard missing.isEmpty else {
            Console.error("grona-mock conformance: the mock holds no key \(missing.joined(separator: ", "))")
            return .failure
        }
        Console.error("grona-mock conformance: mock on \(server.url) (dashboard: \(server.url)/_mock/ui)")
        let report: ConformanceReport
        do {
            report = try runner.run(scenarios, filter: filter) { result in
                for line in ConformanceReport.lines(for: result) { Console.out(line) }
            }
        } catch {
            Console.error("grona-mock conformance: \(error)")
            return .failure
        }
        Console.out(report.summary)
        var status: ExitCode = report.failed == 0 ? .success : .failure
        if let path = parsed.value("junit"), !write(Array(report.junit.utf8), to: path) { status = .failure }
        if let path = parsed.value("json"),
            !write(report.json(finished: true).prettySerialized() + [0x0A], to: path)
        {
            status = .failure
        }
        if parsed.flag("stay") {
            Console.error("grona-mock conformance: the dashboard stays at \(server.url)/_mock/ui; Ctrl-C to stop")
            var received: Int32 = 0
            sigwait(&signals, &received)
        }
        return status
    }

    /// Copies the `*.pem` of `directory` beside the generated keys.
    private static func copyKeys(from directory: String, to destination: String) throws {
        for name in try FileSystem.list(directory) where name.hasSuffix(".pem") {
            let bytes = try FileSystem.read(directory + "/" + name, maxBytes: 64 * 1024)
            try FileSystem.write(bytes, to: destination + "/" + name, mode: 0o600)
        }
    }

    private static func write(_ bytes: [UInt8], to path: String) -> Bool {
        do {
            try FileSystem.write(bytes, to: path)
            return true
        } catch {
            Console.error("grona-mock conformance: \(error)")
            return false
        }
    }
}
