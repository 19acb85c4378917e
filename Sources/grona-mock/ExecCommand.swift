import GronaMock
import GronaMockPlatform
import GronaMockSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `grona-mock exec [options] -- COMMAND [ARGS...]`: serves the mock for as long as one command runs, then
/// stops it and exits with the command's status, as the Firebase emulators' `exec` does. A CI job needs no
/// background process, no port and no wait loop: the command finds the mock in `GRONA_MOCK_URL`.
enum ExecCommand {
    /// `serve`'s options with their variables, but a free port and a throw-away database by default: runs
    /// side by side on one machine must not collide, and a run starts from no events.
    static let options: [OptionSpec] =
        ServeCommand.options.map { spec in
            switch spec.name {
            case "port":
                spec.replacingDefault("0", help: "TCP port; 0 picks a free one (the command reads GRONA_MOCK_URL).")
            case "db":
                spec.replacingDefault(
                    nil,
                    help: "SQLite file for events and revisions, kept at the end (default: a temporary file, removed).")
            default: spec
            }
        } + [
            .flag(
                "fail-on-violations",
                help: "After the command, check every workspace's events against the contract; exit 1 on a violation."
            ),
            .value("report", "FILE", help: "Write a JSON summary: the command's status, events, violations."),
            .value("junit", "FILE", help: "Write the violations as JUnit XML: a test case per rule and workspace."),
        ]

    /// Listed with the options so that its column lines up; `ParsedOptions.parse` handles it before them.
    private static let helpOption = OptionSpec(
        name: "help", short: "h", valueName: nil, environment: nil, defaultValue: nil, help: "Show this help.")

    static let usage = """
        USAGE: grona-mock exec [options] -- COMMAND [ARGS...]

        Starts the mock (on 127.0.0.1, a free port and a temporary database unless told otherwise), runs
        COMMAND with GRONA_MOCK_URL and TEST_RUNNER_GRONA_MOCK_URL (which xcodebuild hands to the test
        process as GRONA_MOCK_URL), and GRONA_MOCK_ADMIN_TOKEN when a token is set, added to its
        environment, then stops the mock and exits with the command's status: 128 + the signal when it was
        killed, 127 when it cannot be found, 126 when it cannot be executed. With --fail-on-violations a
        command that succeeded still fails (exit 1) when the events it made the SDK send break the contract
        (see docs/violations.md); the violations go to stderr.

        COMMAND runs in a process group of its own, and nothing of that group outlives exec:
          - SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are passed on to the whole group (one
            that exec was started with ignored, as nohup ignores SIGHUP, stays ignored in COMMAND too);
          - when COMMAND ends, what it left running in its group gets SIGTERM, then SIGKILL 2 s later (a
            process meant to outlive it, a daemon, leaves the group with setsid);
          - if exec is killed, even by SIGKILL, a watcher stops the group within a second, and a later
            run removes the temporary database of a run that could not;
          - typed at a shell's prompt, COMMAND gets the terminal: it reads the keyboard, and Ctrl-C and
            Ctrl-Z reach it (inside a script, only once it reads the terminal).

        OPTIONS:
        \(ParsedOptions.help(for: options + [helpOption]))

        EXAMPLE:
          grona-mock exec --fail-on-violations --junit grona-mock.xml -- ./gradlew connectedCheck
          grona-mock exec -- sh -c 'curl -fsS "$GRONA_MOCK_URL/_mock/health"'
        """

    /// The exit status: the command's, or 64 for a usage error, 1 when the mock cannot start or (when the
    /// command succeeded) a check or a report failed.
    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        let separator = arguments.firstIndex(of: "--")
        let command = separator.map { Array(arguments[($0 + 1)...]) } ?? []
        let parsed: ParsedOptions
        var (configuration, logger): (GronaMockConfiguration, Logger)
        do throws(UsageError) {
            parsed = try ParsedOptions.parse(
                Array(arguments[..<(separator ?? arguments.endIndex)]), specs: options, environment: environment)
            if parsed.wantsHelp {
                Console.out(usage)
                return ExitCode.success.rawValue
            }
            guard separator != nil else {
                throw UsageError("name the command after --, as in: grona-mock exec -- ./run-tests.sh")
            }
            guard !command.isEmpty else { throw UsageError("no command after --") }
            (configuration, logger) = try ServeCommand.makeConfiguration(parsed)
        } catch {
            Console.error("grona-mock exec: \(error.message)\nRun 'grona-mock exec --help' for the options.")
            return ExitCode.usage.rawValue
        }

        // As in serve: blocked before any thread starts, so that every thread inherits the mask and only
        // the supervisor's wait sees them.
        let signals = ExecSignals.block()
        let temporary = environment["TMPDIR"] ?? "/tmp"
        for (path, owner) in ScratchDirectory.removeStale(in: temporary) {
            logger.info(
                "removed the scratch directory of an earlier run that was killed",
                [("path", path), ("owner", Int(owner.pid))])
        }
        var scratch: ScratchDirectory?
        if parsed.value("db") == nil, parsed.value("store") == nil {
            do {
                let directory = try ScratchDirectory(in: temporary)
                configuration.storage = .sqlite(path: directory.path + "/grona-mock.sqlite")
                scratch = directory
            } catch {
                Console.error("grona-mock exec: \(error)")
                return ExitCode.failure.rawValue
            }
        }
        defer { scratch?.remove() }

        guard let server = ServeCommand.startOrReport(configuration, logger: logger) else {
            return ExitCode.failure.rawValue
        }
        ServeCommand.warnWhenExposed(configuration, logger: logger)
        let url = reachableURL(server, host: configuration.http.host)
        var childEnvironment = environment
        childEnvironment["GRONA_MOCK_URL"] = url
        // xcodebuild passes only `TEST_RUNNER_`-prefixed variables on to the test process (with the prefix
        // removed), so an iOS SDK's tests run by `grona-mock exec -- xcodebuild test` see GRONA_MOCK_URL too.
        childEnvironment["TEST_RUNNER_GRONA_MOCK_URL"] = url
        if let token = configuration.adminToken { childEnvironment["GRONA_MOCK_ADMIN_TOKEN"] = token }
        logger.info("running the command", [("url", url), ("command", command.joined(separator: " "))])

        let started = ContinuousClock.now
        let outcome = runCommand(command, environment: childEnvironment, signals: signals, scratch: scratch, logger)
        let elapsed = started.duration(to: .now)
        let milliseconds = elapsed.milliseconds
        switch outcome {
        case .exited(let status): logger.info("the command exited", [("status", String(status))])
        case .killed(let signal): logger.info("the command was killed", [("signal", ChildProcess.name(of: signal))])
        case .notStarted(_, let reason): Console.error("grona-mock exec: \(reason)")
        }

        let failOnViolations = parsed.flag("fail-on-violations")
        let reportPath = parsed.value("report")
        let junitPath = parsed.value("junit")
        // Read while the server runs: the violations check is one of its routes.
        let findings =
            failOnViolations || reportPath != nil || junitPath != nil ? ExecFindings.gather(from: server.engine) : nil
        server.shutdown()
        server.wait()

        var status = outcome.status
        if let findings, failOnViolations { status = judge(findings, commandStatus: status) }
        if let findings {
            var written = true
            if let reportPath {
                let report = findings.report(
                    command: command, outcome: outcome, durationMilliseconds: milliseconds, url: url, status: status)
                written = write(report.prettySerialized() + [0x0A], to: reportPath) && written
            }
            if let junitPath {
                written =
                    write(Array(findings.junit(durationMilliseconds: milliseconds).utf8), to: junitPath) && written
            }
            if !written && status == 0 { status = ExitCode.failure.rawValue }
        }
        return status
    }

    /// Runs the command in a process group of its own, watched (`GroupWatcher`) in case exec is killed, and
    /// supervised until it and what it started have ended.
    private static func runCommand(
        _ command: [String], environment: [String: String], signals: ExecSignals, scratch: ScratchDirectory?,
        _ logger: Logger
    ) -> ChildProcess.Outcome {
        let watcher = GroupWatcher.start(logFormat: logger.format, logger: logger)
        if let scratch { watcher?.removeIfKilled(scratch) }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(command, environment: environment, defaults: signals.forwarded)
        } catch {
            watcher?.finish()
            return .notStarted(status: error.status, reason: error.reason)
        }
        guard let group = child.group else {
            watcher?.finish()
            return child.reap()
        }
        watcher?.watch(group)
        let supervisor = CommandSupervisor(
            command: child, group: group, signals: signals, terminal: TerminalHandover.begin(for: group),
            watcher: watcher, logger: logger)
        return supervisor.run()
    }

    /// `--fail-on-violations`: prints each violation and each workspace that could not be checked, and
    /// turns a success into a failure when there is any; a failed command keeps its status.
    private static func judge(_ findings: ExecFindings, commandStatus: Int32) -> Int32 {
        for line in findings.violationLines() { Console.error("grona-mock exec: violation \(line)") }
        for problem in findings.problems {
            Console.error("grona-mock exec: cannot check workspace \(problem.workspace): \(problem.message)")
        }
        let count = findings.violationCount
        guard count > 0 || !findings.problems.isEmpty else { return commandStatus }
        let workspaces = findings.workspaces.filter { !$0.violations.isEmpty }.count
        Console.error(
            "grona-mock exec: \(count) contract violation\(count == 1 ? "" : "s") in \(workspaces) "
                + "workspace\(workspaces == 1 ? "" : "s")"
                + (findings.problems.isEmpty ? "" : ", \(findings.problems.count) workspace(s) not checked")
                + (commandStatus == 0 ? "; failing (--fail-on-violations)" : ""))
        return commandStatus == 0 ? ExitCode.failure.rawValue : commandStatus
    }

    /// The URL the command should use: the server's, with a wildcard address replaced by loopback (a client
    /// cannot connect to 0.0.0.0 everywhere).
    private static func reachableURL(_ server: GronaMockServer, host: String) -> String {
        switch host {
        case "0.0.0.0": "http://127.0.0.1:\(server.port)"
        case "::", "[::]": "http://[::1]:\(server.port)"
        default: server.url
        }
    }

    private static func write(_ bytes: [UInt8], to path: String) -> Bool {
        do {
            try FileSystem.write(bytes, to: path)
            return true
        } catch {
            Console.error("grona-mock exec: \(error)")
            return false
        }
    }
}

extension OptionSpec {
    /// The same option with another default and help text.
    fileprivate func replacingDefault(_ defaultValue: String?, help: String) -> OptionSpec {
        OptionSpec(
            name: name, short: short, valueName: valueName, environment: environment, defaultValue: defaultValue,
            help: help, keepsEmptyEnvironment: keepsEmptyEnvironment)
    }
}
