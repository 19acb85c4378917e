import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the command of `grona-mock exec` through `CommandGroupState`: waits for signals and for the command's
/// end, passes signals on to its process group, stops what it leaves running, lends it the terminal, and
/// tells the watcher when the group is done.
///
/// Signals are taken with `sigwait` (the caller blocked them in every thread before any started), so they
/// are handled here, in order, and never in a handler. While the command runs, the wait blocks: SIGCHLD
/// says a child changed. While leftovers are being stopped, it polls every 20 ms, since they are not exec's
/// children and nothing announces their end.
struct CommandSupervisor {
    let command: ChildProcess
    let group: ProcessGroup
    let signals: ExecSignals
    /// The terminal, when exec lent it to the command from the start.
    let terminal: TerminalHandover?
    let watcher: GroupWatcher?
    let logger: Logger

    private static let pollInterval: useconds_t = 20_000

    /// Returns once the command has ended and nothing of its group runs (or what runs survived SIGKILL).
    func run() -> ChildProcess.Outcome {
        var lifecycle = CommandGroupState()
        var terminal = self.terminal
        while true {
            let action: CommandGroupState.Action
            switch lifecycle.state {
            case .running:
                guard let ended = command.hasEnded() else {
                    terminal?.end()
                    watcher?.finish()
                    return .notStarted(
                        status: 1, reason: "cannot wait for the command: \(String(cString: strerror(errno)))")
                }
                if ended {
                    terminal?.end()
                    action = lifecycle.commandEnded(othersRunning: group.hasRunningMembers, at: .now)
                } else if let stop = command.stopSignal() {
                    terminal = handleStop(by: stop, terminal)
                    continue
                } else {
                    let received = signals.wait()
                    if received == SIGCHLD {
                        watcher?.noticeIfEnded()
                        continue
                    }
                    action = lifecycle.received(received, at: .now)
                }
            case .draining, .killing:
                switch signals.takePending() {
                case SIGCHLD?:
                    watcher?.noticeIfEnded()
                    continue
                case let received?:
                    action = lifecycle.received(received, at: .now)
                case nil:
                    action = lifecycle.checked(othersRunning: group.hasRunningMembers, at: .now)
                    if action == .none { usleep(Self.pollInterval) }
                }
            case .finished:
                // The watcher first, while the command's zombie still holds the group's id: once reaped,
                // that id may name someone else's group, which the watcher must never signal.
                watcher?.finish()
                return command.reap()
            }
            perform(action)
        }
    }

    /// The command stopped. With the terminal, it was Ctrl-Z (or SIGSTOP): exec's job stops with it. Without,
    /// when it read the terminal from the background (SIGTTIN, SIGTTOU) while exec's group is in the
    /// foreground (exec inside a script), it is lent the terminal now and continued. Any other stop is the
    /// command's business, as before.
    private func handleStop(by signal: Int32, _ terminal: TerminalHandover?) -> TerminalHandover? {
        let fields: Logger.Fields = [("signal", ChildProcess.name(of: signal)), ("processGroup", Int(group.id))]
        if let terminal {
            logger.info("the command was stopped; exec stops with it", fields)
            terminal.suspendWithCommand()
            return terminal
        }
        guard signal == SIGTTIN || signal == SIGTTOU, let lent = TerminalHandover.lend(to: group) else { return nil }
        logger.info("the command wants the terminal; lent it", fields)
        return lent
    }

    private func perform(_ action: CommandGroupState.Action) {
        let groupField: (String, any LogValueConvertible) = ("processGroup", Int(group.id))
        switch action {
        case .none, .reap:
            break
        case .forward(let signal):
            group.signal(signal)
            logger.info("passed a signal on to the command", [("signal", ChildProcess.name(of: signal)), groupField])
        case .terminateLeftovers:
            group.signal(SIGTERM)
            group.signal(SIGCONT)
            logger.info(
                "the command ended and left processes running in its group; sent them SIGTERM",
                [groupField, ("graceSeconds", Int(CommandGroupState.grace.components.seconds))])
        case .killLeftovers:
            group.signal(SIGKILL)
            logger.info("processes of the command's group were still running; sent them SIGKILL", [groupField])
        case .reapWithSurvivors:
            logger.warning(
                "processes of the command's group survived SIGKILL (uninterruptible sleep?); leaving them",
                [groupField])
        }
    }
}
