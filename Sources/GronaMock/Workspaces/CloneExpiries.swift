import GronaMockPlatform

/// When each clone made with `ttlSeconds` goes. The deadline is on the real monotonic clock, not the mock's:
/// a test that moves the mock's clock forward by a day must not delete its own clone, and one that moves it
/// back must not keep a forgotten clone for ever.
final class CloneExpiries: Sendable {
    private struct State {
        var byKey: [String: WorkspaceRegistry.CloneExpiry] = [:]
        /// The earliest deadline, so that a tick with nothing due looks at no clone.
        var earliest: UInt64 = .max
    }

    private let state = Mutex(State())

    func expiry(of key: String) -> WorkspaceRegistry.CloneExpiry? {
        state.withLock { $0.byKey[key] }
    }

    /// Sets (or, with nil, drops) the expiry of `key`.
    func set(_ expiry: WorkspaceRegistry.CloneExpiry?, for key: String) {
        state.withLock { state in
            state.byKey[key] = expiry
            if let expiry { state.earliest = min(state.earliest, expiry.deadline) }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }

    /// Takes out the expiries whose deadline is at or before `now`, by key. A tick before the earliest deadline
    /// costs one comparison; one that finds some due walks the expiries once.
    func takeDue(now: UInt64) -> [(key: String, ttlSeconds: Int)] {
        state.withLock { state in
            guard state.earliest <= now else { return [] }
            let due = state.byKey.filter { $0.value.deadline <= now }
            for key in due.keys { state.byKey[key] = nil }
            state.earliest = state.byKey.values.map(\.deadline).min() ?? .max
            return due.map { ($0.key, $0.value.ttlSeconds) }.sorted { $0.key < $1.key }
        }
    }
}
