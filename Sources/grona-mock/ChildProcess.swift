#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command `grona-mock exec` runs: spawned with `posix_spawnp`, waited for while the stop signals are
/// passed on to it.
/// The command line links no Foundation, so no `Process`: the spawn is a few calls, and the wait must take
/// signals and the child's end in one place anyway.
struct ChildProcess {
    /// How the command ended, in a shell's terms.
    enum Outcome: Equatable {
        case exited(Int32)
        case killed(signal: Int32)
        /// It never ran: 127 when it was not found, 126 when it could not be executed (as sh reports them).
        case notStarted(status: Int32, reason: String)

        /// The status a shell would give: the exit status, 128 + the signal, or 126/127.
        var status: Int32 {
            switch self {
            case .exited(let status): status
            case .killed(let signal): 128 + signal
            case .notStarted(let status, _): status
            }
        }
    }

    let pid: pid_t

    /// Starts `arguments[0]`, looked up in `PATH` when it has no slash, with exactly `environment`.
    ///
    /// The child gets an empty signal mask (the caller blocks the stop signals in every thread of its own)
    /// and the default action for the signals this process ignores or passes on: SIGPIPE is ignored by
    /// grona-mock, and an ignored disposition would survive exec; SIGINT and SIGTERM are forwarded to it and
    /// must be able to stop it.
    static func spawn(_ arguments: [String], environment: [String: String]) throws(SpawnFailure) -> ChildProcess {
        guard let name = arguments.first else { throw SpawnFailure(status: 127, reason: "no command") }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = CStrings(arguments)
        let envp = CStrings(environment.map { "\($0.key)=\($0.value)" }.sorted())
        defer {
            argv.free()
            envp.free()
        }
        var pid: pid_t = 0
        let error = posix_spawnp(&pid, name, nil, &attributes, argv.pointers, envp.pointers)
        guard error == 0 else { throw SpawnFailure(name, errno: error) }
        return ChildProcess(pid: pid)
    }

    /// Why a command could not be started, with the status a shell gives for it.
    struct SpawnFailure: Error {
        let status: Int32
        let reason: String

        init(status: Int32, reason: String) {
            self.status = status
            self.reason = reason
        }

        /// Worded as sh words them: not found (127) or found but not executable (126).
        init(_ name: String, errno error: Int32) {
            let text = String(cString: strerror(error))
            if error == ENOENT {
                self.init(status: 127, reason: name.contains("/") ? "\(name): \(text)" : "\(name): command not found")
            } else {
                self.init(status: 126, reason: "\(name): cannot execute: \(text)")
            }
        }
    }

    /// Waits for the child to end. `signals` (blocked in every thread by the caller, SIGCHLD among them) are
    /// taken with `sigwait`: SIGCHLD says the child may have ended, any other is sent on to the child, which
    /// decides what it means. `forwarded` hears of each one passed on.
    func wait(signals: sigset_t, forwarded: (Int32) -> Void) -> Outcome {
        var signals = signals
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return Self.outcome(status) }
            if reaped < 0 && errno != EINTR {
                return .notStarted(
                    status: 1, reason: "cannot wait for the command: \(String(cString: strerror(errno)))")
            }
            // SIGCHLD stays pending while blocked, so a child that ended after waitpid wakes this at once.
            var received: Int32 = 0
            guard sigwait(&signals, &received) == 0 else { continue }
            if received != SIGCHLD {
                kill(pid, received)
                forwarded(received)
            }
        }
    }

    /// Decodes a `waitpid` status (the `WIFEXITED`/`WTERMSIG` macros, which Swift does not import; the
    /// layout is the same on Linux and the BSDs).
    static func outcome(_ status: Int32) -> Outcome {
        let low = status & 0x7f
        if low == 0 { return .exited((status >> 8) & 0xff) }
        return .killed(signal: low)
    }

    /// The signal's name for messages, as `kill -l` has it.
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGKILL: "SIGKILL"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        case SIGABRT: "SIGABRT"
        case SIGSEGV: "SIGSEGV"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(signal)"
        }
    }
}

/// A NULL-terminated array of C strings for `posix_spawnp`'s argv and envp; `free` releases them.
private struct CStrings {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init(_ strings: [String]) {
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[strings.count] = nil
    }

    func free() {
        var index = 0
        while let string = pointers[index] {
            #if canImport(Glibc)
            Glibc.free(string)
            #else
            Darwin.free(string)
            #endif
            index += 1
        }
        pointers.deallocate()
    }
}
