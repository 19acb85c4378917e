#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command `grona-mock exec` runs: spawned with `posix_spawnp` as the leader of a process group of its
/// own, watched by `CommandSupervisor`.
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

    /// The group the command leads; its id is the command's pid.
    var group: ProcessGroup? { ProcessGroup(id: pid) }

    /// Starts `arguments[0]`, looked up in `PATH` when it has no slash, with exactly `environment`, as the
    /// leader of a new process group (`POSIX_SPAWN_SETPGROUP`), so that a signal exec passes on reaches what
    /// the command starts too.
    ///
    /// The child gets an empty signal mask (the caller blocks the signals it waits for in every thread of its
    /// own) and the default action for `defaults`: the signals exec passes on, which must be able to stop it,
    /// and SIGPIPE, which grona-mock ignores (an ignored disposition would survive exec). A signal exec found
    /// ignored when it started (`nohup`) is not in `defaults`, and stays ignored in the command.
    static func spawn(
        _ arguments: [String], environment: [String: String], defaults: [Int32]
    ) throws(SpawnFailure) -> ChildProcess {
        guard let name = arguments.first else { throw SpawnFailure(status: 127, reason: "no command") }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaultSet = sigset_t()
        sigemptyset(&defaultSet)
        for signal in defaults + [SIGPIPE, SIGCHLD] { sigaddset(&defaultSet, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaultSet)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

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

    /// Whether the command has ended, without collecting its status: it stays a zombie, and its pid (its
    /// group's id) stays taken. Nil with `errno` when it cannot be waited for.
    func hasEnded() -> Bool? {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 {
            guard errno == EINTR else { return nil }
        }
        return Self.reportedPID(info) == pid
    }

    /// The signal that stopped the command (SIGTSTP from the terminal, SIGTTIN when it read the terminal from
    /// the background, SIGSTOP) since the last look; nil when it has not stopped. Consumes the report, and
    /// never collects an exit.
    func stopSignal() -> Int32? {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WSTOPPED | WNOHANG) != 0 {
            guard errno == EINTR else { return nil }
        }
        guard Self.reportedPID(info) == pid else { return nil }
        #if canImport(Glibc)
        return info._sifields._sigchld.si_status
        #else
        return info.si_status
        #endif
    }

    /// Collects the status of the ended command (`hasEnded` said so): the zombie goes, and its pid is free.
    func reap() -> Outcome {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) != pid {
            guard errno == EINTR else {
                return .notStarted(
                    status: 1, reason: "cannot wait for the command: \(String(cString: strerror(errno)))")
            }
        }
        return Self.outcome(status)
    }

    /// The pid a `waitid` with WNOHANG filled in; 0 when no child was in the state asked for.
    private static func reportedPID(_ info: siginfo_t) -> pid_t {
        #if canImport(Glibc)
        info._sifields._kill.si_pid
        #else
        info.si_pid
        #endif
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
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        case SIGCONT: "SIGCONT"
        case SIGTSTP: "SIGTSTP"
        case SIGTTIN: "SIGTTIN"
        case SIGTTOU: "SIGTTOU"
        case SIGSTOP: "SIGSTOP"
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
