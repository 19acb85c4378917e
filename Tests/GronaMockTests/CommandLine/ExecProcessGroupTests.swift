import Foundation
import GronaMockTestSupport
import Testing

/// `grona-mock exec` owns its command (issue 28): the command runs in a process group of its own, every
/// signal exec passes on reaches the whole group, nothing of the group outlives exec (not even when exec is
/// SIGKILLed), and the scratch database goes with it. Checked as a user would: the built binary, real
/// signals, and what `/proc` shows afterwards.
@Suite("grona-mock exec: the command's process group")
struct ExecProcessGroupTests {
    /// A shell that starts two background sleeps, then says it runs (its pid, the group's id, and theirs, in
    /// `started`) and waits: a signal to the shell alone would leave the sleeps running.
    static let shellWithJobs =
        "ulimit -c 0; sleep 1000 & a=$!; sleep 1000 & b=$!; echo $$ $a $b > started.tmp && mv started.tmp started; wait"

    /// `exec` on the fixture, in the background, with `TMPDIR` the fixture's `tmp` and `command` run in the
    /// fixture's directory.
    static func start(
        _ fixture: MockFixture, _ command: [String], ignoring: [Int32] = []
    ) throws -> BackgroundBinary {
        try BackgroundBinary(
            [
                "exec", "--workspaces", fixture.workspaces.path, "--keys", fixture.keys.path, "--event-loops", "1",
                "--", "/bin/sh", "-c", "cd \"$0\" && eval \"$1\"", fixture.root.path, command.joined(separator: " "),
            ], environment: ["TMPDIR": try temporaryDirectory(fixture).path], directory: fixture.root,
            ignoring: ignoring)
    }

    static func temporaryDirectory(_ fixture: MockFixture) throws -> URL {
        let directory = fixture.root.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The scratch directories exec left in the fixture's TMPDIR.
    static func scratchDirectories(_ fixture: MockFixture) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: try temporaryDirectory(fixture).path)
            .filter { $0.hasPrefix("grona-mock-exec.") }.sorted()
    }

    /// What the command said it started: its own pid (its group's id) and its jobs' pids.
    struct Started {
        let group: pid_t
        /// The command and its jobs as `/proc` showed them just after (a pid with its start time).
        let processes: [ProcessTable.Entry]

        /// What still runs of them or of the group.
        var leftRunning: [pid_t] {
            let members = ProcessTable.running(inGroup: group).map(\.pid)
            return Array(Set(members + processes.filter(ProcessTable.isRunning).map(\.pid))).sorted()
        }
    }

    /// Once the command has written `file` ("pid job-pid..."), what it started; nil (and an issue) if it never
    /// does.
    static func started(_ fixture: MockFixture, _ exec: BackgroundBinary, file: String = "started") -> Started? {
        let path = fixture.root.appendingPathComponent(file)
        var pids: [pid_t] = []
        let seen = eventually(seconds: 30) {
            let text = (try? String(contentsOf: path, encoding: .utf8)) ?? ""
            pids = text.split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
            return !pids.isEmpty
        }
        guard seen, let group = pids.first else {
            Issue.record("the command did not start; stderr: \(exec.stderr)")
            return nil
        }
        return Started(group: group, processes: pids.compactMap(ProcessTable.entry))
    }

    /// Kills whatever a failed test left, so that a failure does not leak processes.
    static func cleanUp(_ started: Started?) {
        guard let started else { return }
        if started.group > 1 { kill(-started.group, SIGKILL) }
        for process in started.processes where ProcessTable.isRunning(process) { kill(process.pid, SIGKILL) }
    }

    @Test(
        "each signal exec passes on reaches the command's whole group; exec then exits 128 + it, leaving nothing",
        arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2])
    func forwardsToGroup(signal: Int32) throws {
        let fixture = try MockFixture.standard()
        let exec = try Self.start(fixture, [Self.shellWithJobs])
        let started = try #require(Self.started(fixture, exec))
        defer { Self.cleanUp(started) }
        #expect(started.processes.count == 3 && started.leftRunning.count == 3, "the shell and its two sleeps")
        #expect(ProcessTable.running(inGroup: started.group).count == 3, "the command leads a group of its own")
        #expect(try Self.scratchDirectories(fixture).count == 1)

        exec.signal(signal)
        // The shell dies of each; the sleeps it started in the background ignore SIGINT and SIGQUIT (as sh
        // starts them), so for those two exec's SIGTERM to what is left stops them.
        #expect(exec.ending(within: 30) == .exited(128 + signal), "stderr: \(exec.stderr)")
        #expect(started.leftRunning.isEmpty, "left running: \(started.leftRunning)")
        #expect(try Self.scratchDirectories(fixture).isEmpty, "the scratch database is removed")
        #expect(exec.stderr.contains("passed a signal on to the command signal=\(Self.name(signal))"), "\(exec.stderr)")
        #expect(!exec.stderr.contains("Program crashed"), "no crash report: \(exec.stderr)")
    }

    @Test("a signal exec was started with ignored (nohup) is not passed on: the command keeps ignoring it")
    func ignoredSignalStaysIgnored() throws {
        let fixture = try MockFixture.standard()
        let exec = try Self.start(fixture, [Self.shellWithJobs], ignoring: [SIGHUP])
        let started = try #require(Self.started(fixture, exec))
        defer { Self.cleanUp(started) }
        // Both pending at once, SIGHUP first: passed on, it would kill the shell (129) before SIGTERM.
        exec.signal(SIGHUP)
        exec.signal(SIGTERM)
        #expect(exec.ending(within: 30) == .exited(128 + SIGTERM), "stderr: \(exec.stderr)")
        #expect(!exec.stderr.contains("signal=SIGHUP"), "\(exec.stderr)")
        #expect(started.leftRunning.isEmpty)
    }

    @Test("what the command leaves running when it ends is stopped: SIGTERM, then SIGKILL if it ignores that")
    func leftoversStopped() throws {
        let fixture = try MockFixture.standard()
        // The first leftover stops on SIGTERM; the second ignores it (an ignored signal stays ignored in a
        // child) and takes SIGKILL after the grace.
        for (run, (trap, expected)) in [("", "sent them SIGTERM"), ("trap '' TERM;", "sent them SIGKILL")].enumerated()
        {
            let file = "left-\(run)"
            let exec = try Self.start(
                fixture, ["\(trap) sleep 1000 & echo $$ $! > \(file).tmp && mv \(file).tmp \(file); exit 3"])
            let started = try #require(Self.started(fixture, exec, file: file))
            defer { Self.cleanUp(started) }
            #expect(exec.ending(within: 30) == .exited(3), "the command's status: \(exec.stderr)")
            #expect(started.leftRunning.isEmpty, "\(trap) left running: \(started.leftRunning)")
            #expect(exec.stderr.contains(expected), "\(exec.stderr)")
        }
    }

    @Test("exec SIGKILLed: its watcher stops the command's whole group and removes the scratch directory")
    func killedExec() throws {
        let fixture = try MockFixture.standard()
        let exec = try Self.start(fixture, [Self.shellWithJobs])
        let started = try #require(Self.started(fixture, exec))
        defer { Self.cleanUp(started) }
        let watcher = ProcessTable.watcher(of: exec.pid)
        #expect(watcher != nil, "a watcher runs beside the command")
        #expect(watcher.map { $0.group != started.group && $0.group != exec.pid } != false, "in a group of its own")

        exec.signal(SIGKILL)
        #expect(exec.ending(within: 30) == .killed(signal: SIGKILL))
        // The watcher takes well under a second (SIGTERM, 0.5 s, SIGKILL); the deadline is for a slow machine.
        #expect(eventually(seconds: 10) { started.leftRunning.isEmpty }, "left running: \(started.leftRunning)")
        #expect(eventually(seconds: 10) { (try? Self.scratchDirectories(fixture))?.isEmpty == true })
        #expect(eventually(seconds: 10) { watcher.map(ProcessTable.isRunning) != true }, "the watcher ends too")
    }

    @Test("when the command ends, the watcher ends with exec")
    func watcherEndsWithExec() throws {
        let fixture = try MockFixture.standard()
        let exec = try Self.start(fixture, ["echo $$ > started.tmp && mv started.tmp started; exec sleep 1000"])
        let started = try #require(Self.started(fixture, exec))
        defer { Self.cleanUp(started) }
        let watcher = try #require(ProcessTable.watcher(of: exec.pid))
        exec.signal(SIGTERM)
        #expect(exec.ending(within: 30) == .exited(128 + SIGTERM))
        #expect(!ProcessTable.isRunning(watcher), "the watcher did not end with exec")
    }

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        default: "signal \(signal)"
        }
    }
}
