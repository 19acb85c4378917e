import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C during `grona-mock load`, as k6 takes it: the first SIGINT (or SIGTERM, or SIGQUIT) asks the run to
/// stop starting visits, send what is pending and print its report (exit 130); a second one exits at once.
/// SIGQUIT (Ctrl-\) is taken too: left to the Swift runtime, it prints a crash report and the run goes on.
///
/// The handler only flips a flag the run's loop polls (`requested`): no allocation, lock or printing in a
/// signal handler (POSIX async-signal safety). `_exit` and `write` are safe there, for the second signal.
enum LoadInterrupt {
    /// Set by the first signal.
    static let requested = Atomic<Bool>(false)

    /// The exit status of an interrupted run: 128 + SIGINT, what a shell shows.
    static let exitStatus: Int32 = 130

    static let signals: [Int32] = [SIGINT, SIGTERM, SIGQUIT]

    /// Installs the handler for `signals`. `requested` is touched first, so that the handler never
    /// runs a global's lazy initialisation.
    static func install() {
        _ = requested.load(ordering: .relaxed)
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handle
        #else
        action.__sigaction_u.__sa_handler = handle
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        for signal in signals { sigaction(signal, &action, nil) }
        // A parent may have started us with them blocked (a test runner's threads, a supervisor): the run's
        // thread takes them.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in signals { sigaddset(&unblocked, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    static var isRequested: Bool { requested.load(ordering: .relaxed) }
}

/// The handler: the first signal sets the flag; the second ends the process now, after a newline so that
/// the shell's prompt does not land on a progress line.
private func handle(_: Int32) {
    guard LoadInterrupt.requested.exchange(true, ordering: .relaxed) else { return }
    var newline = UInt8(ascii: "\n")
    _ = write(2, &newline, 1)
    _exit(LoadInterrupt.exitStatus)
}
