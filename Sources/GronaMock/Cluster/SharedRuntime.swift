import GronaMockPlatform

/// The run-time state that several instances on one database must share so that a client cannot tell how
/// many there are (issue 15): run-time workspace changes (kills, clones, resets), the clock, the fault rules,
/// and word that another instance stored events (for the long-polls).
///
/// One seam: the engine calls `publish` in the same call that applies a change locally, and `start` hands
/// the backend a `RuntimeReplica` through which it applies what other instances changed. `LocalRuntime`
/// (the default, for SQLite and tests in one process) shares nothing and changes nothing about how one
/// process behaves; `GronaMockPostgres` provides the shared one.
package protocol SharedRuntime: Sendable {
    /// Where the fault rules are kept and taken from.
    var faultRules: any FaultRuleStore { get }

    /// Records a run-time workspace change this instance has just applied, for every other instance.
    func publish(_ change: RuntimeChange) throws(StorageError)

    /// Records the clock setting this instance has just applied, and answers the version it was stored as
    /// (0 when nothing is shared), for `ServerClock.published(version:)`.
    func publish(clock: ClockSetting) throws(StorageError) -> Int64

    /// Hands on grants this instance has just issued for the first time. Called on an event loop: it must
    /// not wait for a database, so a shared runtime queues them and writes them from a thread of its own.
    func publish(grants: [GrantLog.Issued])

    /// Clears the grants of one workspace (nil: every grant) on every instance, as a reset does here. A
    /// failure is logged: the reset itself has been done.
    func publish(grantsCleared workspace: String?)

    /// Applies, through `replica`, what other instances changed before this one started, then follows their
    /// changes until `stop`. Returns once the past changes are applied.
    func start(_ replica: RuntimeReplica)

    /// Stops following; waits for the thread that follows.
    func stop()
}

/// Implemented by a storage backend that can share the run-time state (`PostgresStorage`); the engine asks
/// the storage it opened, and runs alone (`LocalRuntime`) when the storage cannot share.
package protocol SharedRuntimeProvider {
    func makeSharedRuntime(logger: Logger) throws(StorageError) -> any SharedRuntime
}

/// How a shared runtime applies other instances' changes to this one: through the same registry, clock and
/// waiters the local changes go through, without publishing them again.
package struct RuntimeReplica: Sendable {
    /// A workspace change made on another instance.
    package let apply: @Sendable (RuntimeChange) -> Void
    /// The clock as an instance set it, and the version of the shared row it was read from.
    package let adoptClock: @Sendable (ClockSetting, Int64) -> Void
    /// Another instance stored events for these workspaces ("*" when it does not say which).
    package let eventsStored: @Sendable (Set<String>) -> Void
    /// Grants another instance issued, added to this one's log without publishing them again.
    package let adoptGrants: @Sendable ([GrantLog.Issued]) -> Void
    /// Another instance cleared the grants of a workspace (nil: every grant).
    package let forgetGrants: @Sendable (String?) -> Void

    package init(
        apply: @escaping @Sendable (RuntimeChange) -> Void,
        adoptClock: @escaping @Sendable (ClockSetting, Int64) -> Void,
        eventsStored: @escaping @Sendable (Set<String>) -> Void,
        adoptGrants: @escaping @Sendable ([GrantLog.Issued]) -> Void = { _ in },
        forgetGrants: @escaping @Sendable (String?) -> Void = { _ in }
    ) {
        self.apply = apply
        self.adoptClock = adoptClock
        self.eventsStored = eventsStored
        self.adoptGrants = adoptGrants
        self.forgetGrants = forgetGrants
    }
}

extension SharedRuntime {
    /// A runtime that shares nothing keeps its grants to itself.
    package func publish(grants: [GrantLog.Issued]) {}
    package func publish(grantsCleared workspace: String?) {}
}

/// One process alone: nothing is published, nothing is followed, and the fault rules live in memory, exactly
/// as before there was a cluster.
package struct LocalRuntime: SharedRuntime {
    package let faultRules: any FaultRuleStore = LocalFaultRules()

    package init() {}

    package func publish(_ change: RuntimeChange) throws(StorageError) {}
    package func publish(clock: ClockSetting) throws(StorageError) -> Int64 { 0 }
    package func publish(grants: [GrantLog.Issued]) {}
    package func publish(grantsCleared workspace: String?) {}
    package func start(_ replica: RuntimeReplica) {}
    package func stop() {}
}
