import Foundation
import GronaMockTestSupport

/// The built binary started in the background as a CI runner starts a job: every signal at its default
/// action (whatever the test runner itself ignores, which `Process` would pass on), standard input from
/// /dev/null, standard output and error to files in `directory`. Killed at the end if still running.
final class BackgroundBinary {
    /// How it ended.
    enum Ending: Equatable {
        case exited(Int32)
        case killed(signal: Int32)
    }

    let pid: pid_t
    let standardOutput: URL
    let standardError: URL
    private(set) var ending: Ending?

    /// `ignoring` names signals to start it with ignored (as `nohup` does SIGHUP).
    init(
        _ arguments: [String], environment: [String: String] = [:], directory: URL, ignoring: [Int32] = []
    ) throws {
        let name = "binary-\(UUID().uuidString)"
        standardOutput = directory.appendingPathComponent("\(name).out")
        standardError = directory.appendingPathComponent("\(name).err")
        var program = [BinaryRunner.executable.path] + arguments
        if !ignoring.isEmpty {
            // The shell's `trap ''` ignores them, and an ignored signal stays ignored across exec.
            let traps = ignoring.map { "trap '' \($0);" }.joined(separator: " ")
            program = ["/bin/sh", "-c", "\(traps) exec \"$@\"", "sh"] + program
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, standardError.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        // Its own process group, as a CI runner gives a job: a signal to the test runner's group stays there.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        let environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let argv = program.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let error = posix_spawn(&pid, program[0], &actions, &attributes, argv, envp)
        guard error == 0 else {
            throw RawClient.Failure(description: "cannot start \(program[0]): \(String(cString: strerror(error)))")
        }
        self.pid = pid
    }

    deinit {
        if ending == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    func signal(_ number: Int32) { kill(pid, number) }

    /// How it ended, once it ends within `seconds`; nil if it still runs then.
    func ending(within seconds: Double) -> Ending? {
        _ = eventually(seconds: seconds) {
            guard ending == nil else { return true }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return false }
            ending = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .killed(signal: status & 0x7f)
            return true
        }
        return ending
    }

    var stderr: String { (try? String(contentsOf: standardError, encoding: .utf8)) ?? "" }
    var stdout: String { (try? String(contentsOf: standardOutput, encoding: .utf8)) ?? "" }
}

/// What `/proc` says of processes (Linux): the test's view of what `exec` leaves behind.
enum ProcessTable {
    struct Entry {
        let pid: pid_t
        let state: Character
        let parent: pid_t
        let group: pid_t
        /// Clock ticks after boot: with the pid, it tells a process from a later one given the same pid.
        let startTime: UInt64
        let commandLine: String

        var hasEnded: Bool { state == "Z" || state == "X" }
    }

    /// Every process, zombies included.
    static func all() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { pid_t($0) }.compactMap(entry)
    }

    static func entry(_ pid: pid_t) -> Entry? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let parent = pid_t(fields[1]),
            let group = pid_t(fields[2]), let startTime = UInt64(fields[19])
        else { return nil }
        let arguments = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
        let commandLine = String(decoding: arguments.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        return Entry(
            pid: pid, state: state, parent: parent, group: group, startTime: startTime, commandLine: commandLine)
    }

    /// The processes of process group `group` that still run. Zombies do not count: they have ended, and
    /// whether anyone collects them (an init that reaps orphans) is the machine's business, not exec's.
    static func running(inGroup group: pid_t) -> [Entry] {
        all().filter { $0.group == group && !$0.hasEnded }
    }

    /// Whether the process `seen` earlier still runs (the same pid and start time, not a zombie).
    static func isRunning(_ seen: Entry) -> Bool {
        guard let now = entry(seen.pid) else { return false }
        return now.startTime == seen.startTime && !now.hasEnded
    }

    /// The children of `pid`, their children, and so on.
    static func descendants(of pid: pid_t) -> [pid_t] {
        let table = all()
        var found: [pid_t] = []
        var parents: Set<pid_t> = [pid]
        while true {
            let children = table.filter { parents.contains($0.parent) && !found.contains($0.pid) }.map(\.pid)
            guard !children.isEmpty else { return found }
            found += children
            parents = Set(children)
        }
    }

    /// The watcher `exec` started (its child running `__watch-group`), if any.
    static func watcher(of exec: pid_t) -> Entry? {
        all().first { $0.parent == exec && $0.commandLine.contains("__watch-group") }
    }
}
