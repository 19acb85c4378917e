#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The signals `grona-mock exec` takes: those it passes on to the command's group (issue 28: the stop
/// signals and the two a program defines for itself), minus any it found ignored when it started (`nohup`
/// ignores SIGHUP, a shell without job control SIGINT and SIGQUIT for a background command: the command
/// inherits the intent), and SIGCHLD, which says a child changed.
struct ExecSignals {
    static let passedOn: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2]

    /// The ones passed on; the command gets the default action for them.
    let forwarded: [Int32]
    private let set: sigset_t

    /// Blocks them in this thread before any other starts, so that every thread inherits the mask and only
    /// `wait` sees them. SIGTTOU is blocked too, and never waited for: it lets exec take the terminal back
    /// from the background (`TerminalHandover`) and write to it with `stty tostop`. SIGCHLD gets its
    /// default action: ignored, the kernel would collect the command before exec could.
    static func block() -> ExecSignals {
        signal(SIGCHLD, SIG_DFL)
        let forwarded = passedOn.filter { !isIgnored($0) }
        let set = ServeCommand.blockSignals(forwarded + [SIGCHLD])
        var terminalOutput = sigset_t()
        sigemptyset(&terminalOutput)
        sigaddset(&terminalOutput, SIGTTOU)
        pthread_sigmask(SIG_BLOCK, &terminalOutput, nil)
        return ExecSignals(forwarded: forwarded, set: set)
    }

    private static func isIgnored(_ signal: Int32) -> Bool {
        var action = sigaction()
        guard sigaction(signal, nil, &action) == 0 else { return false }
        #if canImport(Glibc)
        let handler = action.__sigaction_handler.sa_handler
        #else
        let handler = action.__sigaction_u.__sa_handler
        #endif
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// The next signal, waiting for it.
    func wait() -> Int32 {
        var set = set
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        return received
    }

    /// A signal already pending, without waiting; nil when there is none.
    func takePending() -> Int32? {
        var pending = sigset_t()
        guard sigpending(&pending) == 0 else { return nil }
        for signal in forwarded + [SIGCHLD] where sigismember(&pending, signal) == 1 {
            var one = sigset_t()
            sigemptyset(&one)
            sigaddset(&one, signal)
            var received: Int32 = 0
            if sigwait(&one, &received) == 0 { return received }
        }
        return nil
    }
}
