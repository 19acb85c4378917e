import GronaMock
import GronaMockPlatform

/// The run-time state of several instances on one PostgreSQL database (issue 15): run-time workspace changes
/// in the append-only `runtime_changes`, the clock in `runtime_clock`, fault rules in `fault_rules`, the
/// grants issued in `issued_grants` (`PostgresRuntime+Grants.swift`), each change followed by a `NOTIFY`, so that a kill on one instance is served by every instance within
/// milliseconds.
///
/// Each instance applies what it reads through the same registry functions the local calls use, skipping
/// the rows it wrote itself (`instance`). A notification only says "look": the listener reads the rows after
/// the last one applied, and also looks every `PostgresListener.tick` in case a notification was lost (a
/// reconnect drops those sent meanwhile), so no change is missed, only delayed.
final class PostgresRuntime: SharedRuntime {
    /// Serializes change writers ("grona-rc"), so that `seq` order is commit order (see `Schema.clusterTables`).
    static let changeLock: Int64 = 0x6772_6F6E_612D_7263
    /// Serializes grant writers ("grona-gr"), for the same reason.
    static let grantLock: Int64 = 0x6772_6F6E_612D_6772

    enum Channel: String, CaseIterable {
        /// Payload: the new change's seq.
        case changes = "grona_changes"
        /// Payload: the clock row's version.
        case clock = "grona_clock"
        /// Payload: empty; a rule was added or removed.
        case faults = "grona_faults"
        /// Payload: the workspaces that got events, comma-separated, or "*".
        case events = "grona_events"
        /// Payload: empty; grants were added to `issued_grants`.
        case grants = "grona_grants"
    }

    let pool: PostgresPool
    let faultRules: any FaultRuleStore
    private let rules: PostgresFaultRules
    /// This process's mark on the rows it writes: it applies them as it makes them, not again when read.
    let instance: String
    let logger: Logger
    let followed = Mutex(Followed())
    private let listener = Mutex<PostgresListener?>(nil)
    /// Grants issued here, on their way to `issued_grants`; created with the runtime, stopped with it.
    private let grantQueue = Mutex<PostgresGrantQueue?>(nil)

    /// What this instance has applied so far.
    struct Followed {
        var lastChange: Int64 = 0
        var clockVersion: Int64 = 0
        /// The newest event sequence a tick saw, so a tick wakes the long-polls only when events arrived.
        var lastEventSequence: Int64 = 0
        var lastGrant: Int64 = 0
        var lastGrantClear: Int64 = 0
    }

    init(url: PostgresURL, logger: Logger) {
        pool = PostgresPool(url: url, readers: 2)
        rules = PostgresFaultRules(pool: pool)
        faultRules = rules
        var generator = SystemRandomNumberGenerator()
        instance = String(generator.next() as UInt64, radix: 16)
        self.logger = logger
        let queue = PostgresGrantQueue(logger: logger) { [pool, instance] (batch) throws(StorageError) in
            try Self.run { () throws(PostgresError) in try Self.write(batch, instance: instance, pool) }
        }
        grantQueue.withLock { $0 = queue }
    }

    // MARK: - Publishing

    func publish(_ change: RuntimeChange) throws(StorageError) {
        var lock = PostgresBinds()
        lock.append(Self.changeLock)
        var row = PostgresBinds()
        row.append(instance)
        row.append(change.kind.rawValue)
        row.append(change.workspace)
        row.append(bytes: change.payload)
        try Self.run { () throws(PostgresError) in
            try pool.withWriter { connection throws(PostgresError) in
                try connection.transaction { () throws(PostgresError) in
                    try connection.run(prepared: "change_lock", "SELECT pg_advisory_xact_lock($1)", lock)
                    // The notification is sent at COMMIT, once the row can be read.
                    try connection.run(
                        prepared: "change_insert",
                        """
                        WITH added AS (
                            INSERT INTO runtime_changes (instance, kind, workspace_key, payload)
                            VALUES ($1, $2, $3, $4) RETURNING seq)
                        SELECT pg_notify('\(Channel.changes.rawValue)', seq::text) FROM added
                        """, row)
                    // A reset of everything supersedes every change before it: no instance replays them again.
                    if change == .reset(workspace: nil) {
                        try connection.execute(
                            """
                            DELETE FROM runtime_changes WHERE seq < (SELECT max(seq) FROM runtime_changes
                                WHERE kind = 'reset'::bytea AND workspace_key IS NULL)
                            """)
                    }
                }
            }
        }
    }

    func publish(grants: [GrantLog.Issued]) {
        grantQueue.withLock { $0 }?.submit(grants)
    }

    func publish(grantsCleared workspace: String?) {
        do {
            try Self.run { () throws(PostgresError) in try clearGrants(workspace) }
        } catch {
            logger.error(
                "grants were cleared here but the other instances could not be told",
                [("workspace", workspace ?? "*"), ("error", "\(error)")])
        }
    }

    /// The setting as the row's next version; that version is answered, so the clock ignores its own
    /// notification of it and of every older one (`ServerClock.adopt`).
    func publish(clock: ClockSetting) throws(StorageError) -> Int64 {
        var binds = PostgresBinds()
        binds.append(clock.offsetMilliseconds)
        binds.append(clock.frozenAt)
        return try Self.run { () throws(PostgresError) in
            try pool.withWriter { connection throws(PostgresError) in
                let result = try connection.run(
                    prepared: "clock_set",
                    """
                    WITH set AS (
                        INSERT INTO runtime_clock (id, offset_ms, frozen_at, version) VALUES (1, $1, $2, 1)
                        ON CONFLICT (id) DO UPDATE SET offset_ms = excluded.offset_ms,
                            frozen_at = excluded.frozen_at, version = runtime_clock.version + 1
                        RETURNING version)
                    SELECT version, pg_notify('\(Channel.clock.rawValue)', version::text) FROM set
                    """, binds)
                return result.rowCount == 1 ? result.int64(0, 0) : 0
            }
        }
    }

    // MARK: - Following

    func start(_ replica: RuntimeReplica) {
        // What others changed before this instance started, from the last reset of everything on.
        follow(replica, fromLastReset: true)
        let started = PostgresListener(url: pool.url, channels: Channel.allCases.map(\.rawValue), logger: logger) {
            [self] notifications in
            var stored: Set<String> = []
            for notification in notifications where notification.channel == Channel.events.rawValue {
                stored.formUnion(notification.payload.split(separator: ",").map(String.init))
            }
            // Wake the long-polls first: reading the changes can wait for the database.
            if !stored.isEmpty { replica.eventsStored(stored) }
            // nil: a tick or a reconnect, when a notification may have been missed.
            if notifications.isEmpty || notifications.contains(where: { $0.channel != Channel.events.rawValue }) {
                follow(replica, fromLastReset: false)
            }
            if notifications.isEmpty { wakeIfEventsStored(replica) }
        }
        listener.withLock { $0 = started }
    }

    func stop() {
        let running = listener.withLock { listener -> PostgresListener? in
            defer { listener = nil }
            return listener
        }
        running?.stop()
        let queue = grantQueue.withLock { queue -> PostgresGrantQueue? in
            defer { queue = nil }
            return queue
        }
        queue?.stop()
    }

    /// Applies the changes after the last one applied, the clock when it changed, and the grants other
    /// instances issued, and refreshes whether any fault rule exists. A failure is logged and tried again at
    /// the next tick.
    ///
    /// Grants and their clears are read in one snapshot, and the clears applied first: a clear deletes its
    /// grants in the transaction that records it, so every grant in the snapshot was stored after the clears
    /// in it, and survives them here too. A grant page that comes back full is followed by another read.
    private func follow(_ replica: RuntimeReplica, fromLastReset: Bool) {
        var fromLastReset = fromLastReset
        var more = true
        while more {
            let seen = followed.withLock { $0 }
            let ticket = rules.observation()
            do {
                let (changes, clock, hasRules, clears, grants) = try Self.run { () throws(PostgresError) in
                    try pool.withReader { connection throws(PostgresError) in
                        try connection.transaction { () throws(PostgresError) in
                            try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                            return (
                                try readChanges(after: seen.lastChange, fromLastReset: fromLastReset, connection),
                                try readClock(newerThan: seen.clockVersion, connection),
                                try connection.query("SELECT EXISTS (SELECT 1 FROM fault_rules)").bool(0, 0),
                                try readGrantClears(after: seen.lastGrantClear, connection),
                                try readGrants(after: seen.lastGrant, connection)
                            )
                        }
                    }
                }
                rules.rulesExist(hasRules, observedAt: ticket)
                for (seq, change) in changes {
                    if let change { replica.apply(change) }
                    followed.withLock { $0.lastChange = max($0.lastChange, seq) }
                }
                if let (version, setting) = clock {
                    replica.adoptClock(setting, version)
                    followed.withLock { $0.clockVersion = max($0.clockVersion, version) }
                }
                for (seq, workspace) in clears {
                    replica.forgetGrants(workspace)
                    followed.withLock { $0.lastGrantClear = max($0.lastGrantClear, seq) }
                }
                if !grants.entries.isEmpty { replica.adoptGrants(grants.entries) }
                followed.withLock { $0.lastGrant = max($0.lastGrant, grants.last) }
                more = grants.full
                fromLastReset = false
            } catch {
                logger.warning("the shared run-time state could not be read", [("error", error.message)])
                more = false
            }
        }
    }

    @discardableResult
    static func run<T>(_ body: () throws(PostgresError) -> T) throws(StorageError) -> T {
        do {
            return try body()
        } catch {
            throw StorageError(error)
        }
    }
}

extension PostgresStorage: SharedRuntimeProvider {
    package func makeSharedRuntime(logger: Logger) throws(StorageError) -> any SharedRuntime {
        PostgresRuntime(url: pool.url, logger: logger)
    }
}
