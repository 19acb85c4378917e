import GronaMockHTTP

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
    let terminal: TerminalHandover?
    let watcher: GroupWatcher?
    let logger: Logger

    private static let pollInterval: useconds_t = 20_000

    /// Returns once the command has ended and nothing of its group runs (or what runs survived SIGKILL).
    func run() -> ChildProcess.Outcome {
        var lifecycle = CommandGroupState()
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
                } else if let terminal, command.hasStopped() {
                    logger.info(
                        "the command was stopped (Ctrl-Z); exec stops with it", [("processGroup", Int(group.id))])
                    terminal.suspendWithCommand()
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
