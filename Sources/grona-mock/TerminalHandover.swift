#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal, lent to the command's process group while it runs, as a shell lends it to a foreground job.
///
/// In a group of its own the command is no longer the terminal's foreground group: reading the terminal
/// would stop it (SIGTTIN), and Ctrl-C would reach exec alone. So when exec is a job of its own in the
/// foreground of its controlling terminal (typed at an interactive shell's prompt, whatever its
/// redirections), the command's group becomes the foreground group from the start (`begin`, `tcsetpgrp` as
/// tini does): the command reads the keyboard, and Ctrl-C, Ctrl-\ and Ctrl-Z reach it directly.
///
/// Inside a script exec shares the script's group, which must still hear Ctrl-C: the terminal stays with
/// that group and exec passes the signals on, unless the command reads the terminal; then it is lent the
/// terminal when the kernel stops it for that (`lend`). Exec blocks SIGTTOU (`ExecSignals`), which lets it
/// take the terminal back from the background.
struct TerminalHandover {
    /// The controlling terminal, opened for exec alone (close-on-exec).
    private let terminal: Int32
    private let ownGroup: pid_t
    let commandGroup: ProcessGroup

    /// Hands the terminal to `commandGroup` as the command starts; nil (and nothing done) when exec has no
    /// controlling terminal (CI), is not in its foreground (a background job) or does not lead its group (a
    /// script).
    static func begin(for commandGroup: ProcessGroup) -> TerminalHandover? {
        guard getpgrp() == getpid() else { return nil }
        return handOver(to: commandGroup)
    }

    /// Hands the terminal to `commandGroup`, which the kernel stopped for reading it from the background;
    /// nil (and nothing done) when exec's group does not have the terminal either.
    static func lend(to commandGroup: ProcessGroup) -> TerminalHandover? {
        handOver(to: commandGroup)
    }

    private static func handOver(to commandGroup: ProcessGroup) -> TerminalHandover? {
        let ownGroup = getpgrp()
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return nil }
        guard tcgetpgrp(terminal) == ownGroup, tcsetpgrp(terminal, commandGroup.id) == 0 else {
            close(terminal)
            return nil
        }
        // The command may have read the terminal before it was its own, and been stopped for it.
        commandGroup.signal(SIGCONT)
        return TerminalHandover(terminal: terminal, ownGroup: ownGroup, commandGroup: commandGroup)
    }

    /// The command has ended: exec's group takes the terminal back, if the command's group still has it.
    func end() {
        takeBack()
        close(terminal)
    }

    /// The command was stopped (Ctrl-Z): exec's job stops too, as a shell sees a stopped job, and gets the
    /// terminal back first so that the shell can take it. When the job is continued (`fg`, `bg`) the command
    /// is continued, with the terminal again if exec is in the foreground.
    ///
    /// SIGTSTP rather than SIGSTOP: the kernel discards it when exec's group is orphaned (no shell to
    /// continue it), and then the command is simply continued.
    func suspendWithCommand() {
        takeBack()
        kill(0, SIGTSTP)
        if tcgetpgrp(terminal) == ownGroup { tcsetpgrp(terminal, commandGroup.id) }
        commandGroup.signal(SIGCONT)
    }

    private func takeBack() {
        if tcgetpgrp(terminal) == commandGroup.id { tcsetpgrp(terminal, ownGroup) }
    }
}
