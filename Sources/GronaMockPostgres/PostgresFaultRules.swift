import GronaMock
import GronaMockJSON
import GronaMockPlatform

/// Fault rules in the shared database (`fault_rules`), so that a rule for the next N requests fires N times
/// across the cluster, and a seeded rule draws one sequence however the requests are spread over instances.
///
/// A request is taken in one transaction that locks the rows it may touch (`FOR UPDATE`), runs the same
/// decision as one process (`FaultRule.take`) on the rules rebuilt from their documents and counters, and
/// writes back the counters that moved: concurrent requests on any instance queue on the rows and each sees
/// a consistent count and draw. Ids are the table's identity, never reused.
final class PostgresFaultRules: FaultRuleStore {
    private let pool: PostgresPool
    /// Whether any rule may exist: set when one is added here, refreshed by `PostgresRuntime` on every
    /// notification and tick, and by every listing. While false, a request asks nothing.
    private let exist = Atomic<Bool>(true)
    /// Tickets order the reads that refresh `exist` by when they began, and `applied` is the newest ticket
    /// applied: a follower's read that began before a rule was added must not lower the flag after a listing
    /// that began later (and saw the rule) raised it, or a rule another instance lists would go unasked here
    /// until the next tick.
    private let tickets = Atomic<UInt64>(0)
    private let applied = Mutex<UInt64>(0)

    init(pool: PostgresPool) {
        self.pool = pool
    }

    var takesRemotely: Bool { true }
    var mayHaveRules: Bool { exist.load(ordering: .acquiring) }

    /// A ticket for a read of whether rules exist, taken before the read begins.
    func observation() -> UInt64 { tickets.add(1, ordering: .relaxed).newValue }

    /// What the read of `ticket` found, applied unless a read that began later has been applied already.
    func rulesExist(_ exist: Bool, observedAt ticket: UInt64) {
        applied.withLock { newest in
            guard ticket > newest else { return }
            newest = ticket
            self.exist.store(exist, ordering: .releasing)
        }
    }

    func take(_ endpoint: FaultEngine.Endpoint, workspace: String?, claimed: Bool) throws(StorageError) -> FaultAction?
    {
        var binds = PostgresBinds()
        binds.append(endpoint.rawValue)
        binds.append(workspace)
        return try run { () throws(PostgresError) in
            try pool.withReader { connection throws(PostgresError) in
                try connection.transaction { () throws(PostgresError) -> FaultAction? in
                    let rows = try connection.run(
                        prepared: "faults_lock",
                        """
                        SELECT id, document, seen, fired, generator FROM fault_rules
                        WHERE endpoint IN ('all'::bytea, $1) AND workspace_key IS NOT DISTINCT FROM $2
                        ORDER BY id FOR UPDATE
                        """, binds)
                    guard rows.rowCount > 0 else { return nil }
                    var rules = (0..<rows.rowCount).compactMap { Self.rule(rows, $0) }
                    let before = rules.map { ($0.seen, $0.fired, $0.generatorState) }
                    let action = FaultRule.take(&rules, endpoint, workspace: workspace, claimed: claimed)
                    for (rule, old) in zip(rules, before) where (rule.seen, rule.fired, rule.generatorState) != old {
                        var update = PostgresBinds()
                        update.append(Int64(rule.seen))
                        update.append(Int64(rule.fired))
                        update.append(rule.generatorState.map { Int64(bitPattern: $0) })
                        update.append(Self.rowID(rule.id))
                        try connection.run(
                            prepared: "faults_taken",
                            "UPDATE fault_rules SET seen = $1, fired = $2, generator = $3 WHERE id = $4", update)
                    }
                    return action
                }
            }
        }
    }

    func add(_ rule: FaultRule) throws(StorageError) -> JSONObject {
        var document = rule.listing
        for counter in ["id", "fired", "remaining", "seen"] { _ = document.remove(counter) }
        var binds = PostgresBinds()
        binds.append(rule.target.name)
        binds.append(rule.workspace)
        binds.append(bytes: JSONValue.object(document).serialized())
        binds.append(rule.generatorState.map { Int64(bitPattern: $0) })
        let id = try run { () throws(PostgresError) in
            try pool.withWriter { connection throws(PostgresError) in
                let id = try connection.query(
                    """
                    INSERT INTO fault_rules (endpoint, workspace_key, document, generator) VALUES ($1, $2, $3, $4)
                    RETURNING id
                    """, binds
                ).int64(0, 0)
                try connection.execute("NOTIFY \(PostgresRuntime.Channel.faults.rawValue)")
                return id
            }
        }
        rulesExist(true, observedAt: observation())
        var added = rule
        added.id = "fault-\(id)"
        return added.listing
    }

    func listing() throws(StorageError) -> [JSONObject] {
        let ticket = observation()
        let listed = try read(
            "SELECT id, document, seen, fired, generator FROM fault_rules ORDER BY id", PostgresBinds())
        rulesExist(!listed.isEmpty, observedAt: ticket)
        return listed
    }

    func listing(id: String) throws(StorageError) -> JSONObject? {
        guard let row = Self.rowID(id) else { return nil }
        var binds = PostgresBinds()
        binds.append(row)
        return try read("SELECT id, document, seen, fired, generator FROM fault_rules WHERE id = $1", binds).first
    }

    func remove(id: String) throws(StorageError) -> Bool {
        guard let row = Self.rowID(id) else { return false }
        var binds = PostgresBinds()
        binds.append(row)
        return try delete("DELETE FROM fault_rules WHERE id = $1", binds) > 0
    }

    func clear(workspace: String?) throws(StorageError) -> Int {
        guard let workspace else { return try delete("DELETE FROM fault_rules", PostgresBinds()) }
        var binds = PostgresBinds()
        binds.append(workspace)
        return try delete("DELETE FROM fault_rules WHERE workspace_key = $1", binds)
    }

    // MARK: - Rows

    private func read(_ sql: String, _ binds: PostgresBinds) throws(StorageError) -> [JSONObject] {
        try run { () throws(PostgresError) in
            try pool.withReader { connection throws(PostgresError) in
                let rows = try connection.query(sql, binds)
                return (0..<rows.rowCount).compactMap { Self.rule(rows, $0)?.listing }
            }
        }
    }

    private func delete(_ sql: String, _ binds: PostgresBinds) throws(StorageError) -> Int {
        try run { () throws(PostgresError) in
            try pool.withWriter { connection throws(PostgresError) in
                let count = try connection.query(sql, binds).affectedRows
                try connection.execute("NOTIFY \(PostgresRuntime.Channel.faults.rawValue)")
                return count
            }
        }
    }

    /// The rule of row `row` (id, document, seen, fired, generator); nil for a document this version cannot
    /// read, which then neither fires nor lists.
    private static func rule(_ rows: PostgresResult, _ row: Int) -> FaultRule? {
        guard let document = try? JSONParser().parse(rows.bytes(row, 1)) else { return nil }
        let seen = Int(clamping: rows.int64(row, 2))
        let fired = Int(clamping: rows.int64(row, 3))
        let generator = rows.optionalInt64(row, 4).map { UInt64(bitPattern: $0) }
        return try? FaultRule.restored(
            from: document, id: "fault-\(rows.int64(row, 0))", seen: seen, fired: fired, generatorState: generator)
    }

    /// The row of `fault-N`; nil for any other id.
    private static func rowID(_ id: String) -> Int64? {
        guard id.hasPrefix("fault-"), let number = Int64(id.dropFirst("fault-".count)), number > 0 else { return nil }
        return number
    }

    private func run<T>(_ body: () throws(PostgresError) -> T) throws(StorageError) -> T {
        do {
            return try body()
        } catch {
            throw StorageError(error)
        }
    }
}
