#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lifecycle of the command `grona-mock exec` runs and of the process group it leads, as one enum with
/// one `mutating` method per input, each returning what the caller must do (the shape of
/// `ClientConnectionState`).
///
/// While the command runs, every signal exec takes is passed on to its group. When the command has ended,
/// whatever it left running in the group is stopped: SIGTERM, then SIGKILL after `grace`, so that exec
/// leaves nothing behind. The command's status is collected only after that (`reap`): until then it is a
/// zombie, and its pid, which is the group's id, cannot be given to a new group, so every signal exec sends
/// reaches the group it started.
struct CommandGroupState: Equatable {
    enum State: Equatable {
        /// The command runs.
        case running
        /// The command has ended; what it left in the group was sent SIGTERM and has until then to go.
        case draining(until: ContinuousClock.Instant)
        /// What was left did not go in time and was sent SIGKILL; the kernel takes it until then.
        case killing(until: ContinuousClock.Instant)
        /// Nothing of the group runs any more (or nothing more can be done): the command's status is next.
        case finished
    }

    enum Action: Equatable {
        case none
        /// Send this signal, which exec received, to the group.
        case forward(Int32)
        /// Send SIGTERM to the group (and SIGCONT, so that a stopped member hears it).
        case terminateLeftovers
        /// Send SIGKILL to the group.
        case killLeftovers
        /// Collect the command's status: nothing of the group runs.
        case reap
        /// Collect the command's status although members survived SIGKILL (a process in uninterruptible
        /// sleep, on a hung file system): say so.
        case reapWithSurvivors
    }

    /// How long what the command left running has between SIGTERM and SIGKILL.
    static let grace: Duration = .seconds(2)
    /// How long the kernel has to take the members after SIGKILL before exec stops waiting for them.
    static let killWait: Duration = .seconds(2)
    /// The signals that ask exec to stop; one of them while leftovers are given their grace ends the grace.
    static let stopRequests: Set<Int32> = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private(set) var state: State = .running

    /// Exec took `signal` (one of those it passes on).
    mutating func received(_ signal: Int32, at now: ContinuousClock.Instant) -> Action {
        switch state {
        case .running:
            return .forward(signal)
        case .draining:
            // Asked again to stop while waiting for the leftovers: no more waiting.
            guard Self.stopRequests.contains(signal) else { return .forward(signal) }
            state = .killing(until: now + Self.killWait)
            return .killLeftovers
        case .killing, .finished:
            return .none
        }
    }

    /// The command ended; `othersRunning` says whether other members of its group still run.
    mutating func commandEnded(othersRunning: Bool, at now: ContinuousClock.Instant) -> Action {
        guard state == .running else { return .none }
        guard othersRunning else {
            state = .finished
            return .reap
        }
        state = .draining(until: now + Self.grace)
        return .terminateLeftovers
    }

    /// A look at the group while leftovers are being stopped.
    mutating func checked(othersRunning: Bool, at now: ContinuousClock.Instant) -> Action {
        switch state {
        case .running, .finished:
            return .none
        case .draining(let until):
            if !othersRunning {
                state = .finished
                return .reap
            }
            guard now >= until else { return .none }
            state = .killing(until: now + Self.killWait)
            return .killLeftovers
        case .killing(let until):
            if !othersRunning {
                state = .finished
                return .reap
            }
            guard now >= until else { return .none }
            state = .finished
            return .reapWithSurvivors
        }
    }
}
