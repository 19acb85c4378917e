import GronaHTTP
import GronaJSON
import Synchronization

/// Received events: written through the one writer thread, read through the database's reading
/// connection, for the inspection API and the command line.
public final class EventStore: Sendable {
    let database: Database
    let writer: EventWriter?

    /// A store that writes: the server's. `onCommit` hears of every commit (the `wait` long-polls).
    init(
        database: Database, maxEvents: Int?, logger: Logger, metrics: Metrics? = nil,
        onCommit: @escaping @Sendable (Set<String>) -> Void
    ) {
        self.database = database
        writer = EventWriter(
            database: database, maxEvents: maxEvents, logger: logger, metrics: metrics, onCommit: onCommit)
    }

    /// The database's size on disk: its pages and its write-ahead log.
    public func databaseBytes() -> Int64 {
        let pages =
            (try? database.withReader { connection throws(SQLiteError) in
                Int64(
                    try connection.scalarText(
                        "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()") ?? "0")
                    ?? 0
            }) ?? 0
        return pages + (FileSystem.size(database.path + "-wal") ?? 0)
    }

    /// A store that only reads: the command line's, on the database file, with or without a server running.
    public init(readingFrom database: Database) {
        self.database = database
        writer = nil
    }

    func stop() { writer?.stop() }

    /// Whether events can be stored now: a one-row write, committed through the writer like any batch.
    /// A store that only reads answers that it cannot write.
    ///
    /// One probe serves every caller that asks while it runs, and its answer is reused for
    /// `probeReuse`, so a flood of health checks costs at most one commit per interval.
    func probeStorage(_ completion: @escaping @Sendable (Result<Void, SQLiteError>) -> Void) {
        guard let writer else { return completion(.failure(SQLiteError(code: 8, message: "read-only store"))) }
        let now = MonotonicClock.now()
        let (cached, start) = probes.withLock { probes -> (Result<Void, SQLiteError>?, Bool) in
            if let last = probes.last, now &- last.at < Self.probeReuse.nanoseconds { return (last.result, false) }
            probes.waiting.append(completion)
            defer { probes.inFlight = true }
            return (nil, !probes.inFlight)
        }
        if let cached { return completion(cached) }
        guard start else { return }
        writer.submit(
            .probe { [self] result in
                let waiting = probes.withLock { probes in
                    defer {
                        probes.waiting = []
                        probes.inFlight = false
                        probes.last = (MonotonicClock.now(), result)
                    }
                    return probes.waiting
                }
                for waiter in waiting { waiter(result) }
            })
    }

    static let probeReuse: Duration = .milliseconds(250)

    private struct Probes {
        var waiting: [@Sendable (Result<Void, SQLiteError>) -> Void] = []
        var inFlight = false
        var last: (at: UInt64, result: Result<Void, SQLiteError>)?
    }

    private let probes = Mutex(Probes())

    /// Stops a long read (a scan) that would otherwise hold shutdown.
    func interruptReads() { database.interruptReads() }

    /// The writer's last verdict on the database and its last error.
    var storageStatus: EventWriter.Status { writer?.status.withLock { $0 } ?? EventWriter.Status(writable: false) }

    // MARK: - Reading

    /// The sequence of the newest stored event (0 when there is none).
    public func lastSequence() throws(SQLiteError) -> Int64 {
        try database.withReader { connection throws(SQLiteError) in
            Int64(try connection.scalarText("SELECT coalesce(max(seq), 0) FROM events") ?? "0") ?? 0
        }
    }

    /// Stored events matching `filter`, one page, each as its JSON plus the server's fields.
    public func events(_ filter: EventFilter, page: EventPage) throws(SQLiteError) -> (
        events: [JSONValue], nextCursor: Int64?
    ) {
        var (clause, values) = filter.sql()
        if let cursor = page.cursor {
            clause += (clause.isEmpty ? " WHERE " : " AND ") + (page.newestFirst ? "seq < ?" : "seq > ?")
            values.append(.integer(cursor))
        }
        let sql = """
            SELECT seq, workspace_key, install_id, received_at, corrected_timestamp, json FROM events\(clause)
            ORDER BY seq \(page.newestFirst ? "DESC" : "ASC") LIMIT \(page.limit + 1)
            """
        var rows: [(Int64, JSONValue)] = try database.withReader { connection throws(SQLiteError) in
            let statement = try connection.prepare(sql)
            try statement.bind(values)
            var rows: [(Int64, JSONValue)] = []
            while try statement.step() {
                var object = (try? JSONParser().parse(statement.blob(5)).objectValue) ?? JSONObject()
                object.set("sequence", .number(JSONNumber(statement.int64(0))))
                object.set("workspaceKey", .string(statement.text(1) ?? ""))
                object.set("installID", .string(statement.text(2) ?? ""))
                object.set("receivedAt", .number(JSONNumber(statement.int64(3))))
                object.set("correctedTimestamp", .number(JSONNumber(statement.int64(4))))
                rows.append((statement.int64(0), .object(object)))
            }
            return rows
        }
        let more = rows.count > page.limit
        if more { rows.removeLast() }
        return (rows.map(\.1), more ? rows.last?.0 : nil)
    }

    /// How many stored events match.
    public func count(_ filter: EventFilter) throws(SQLiteError) -> Int {
        let (clause, values) = filter.sql()
        return try database.withReader { connection throws(SQLiteError) in
            let statement = try connection.prepare("SELECT count(*) FROM events" + clause)
            try statement.bind(values)
            return try statement.step() ? Int(statement.int64(0)) : 0
        }
    }

    /// Rejected events, with their reasons, oldest first.
    public func rejected(workspace: String?, page: EventPage) throws(SQLiteError) -> (
        events: [JSONValue], nextCursor: Int64?
    ) {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let workspace {
            conditions.append("workspace_key = ?")
            values.append(.text(workspace))
        }
        if let cursor = page.cursor {
            conditions.append(page.newestFirst ? "seq < ?" : "seq > ?")
            values.append(.integer(cursor))
        }
        let clause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let sql = """
            SELECT seq, workspace_key, batch_index, event_id, field, reason, received_at, install_id, json
            FROM rejected_events\(clause) ORDER BY seq \(page.newestFirst ? "DESC" : "ASC") LIMIT \(page.limit + 1)
            """
        var rows: [(Int64, JSONValue)] = try database.withReader { connection throws(SQLiteError) in
            let statement = try connection.prepare(sql)
            try statement.bind(values)
            var rows: [(Int64, JSONValue)] = []
            while try statement.step() {
                let event = (try? JSONParser().parse(statement.blob(8))) ?? .null
                let object: JSONObject = [
                    "sequence": .number(JSONNumber(statement.int64(0))),
                    "workspaceKey": .string(statement.text(1) ?? ""),
                    "index": .number(JSONNumber(statement.int64(2))),
                    "eventID": statement.text(3).map(JSONValue.string) ?? .null,
                    "field": .string(statement.text(4) ?? ""),
                    "reason": .string(statement.text(5) ?? ""), "receivedAt": .number(JSONNumber(statement.int64(6))),
                    "installID": .string(statement.text(7) ?? ""), "event": event,
                ]
                rows.append((statement.int64(0), .object(object)))
            }
            return rows
        }
        let more = rows.count > page.limit
        if more { rows.removeLast() }
        return (rows.map(\.1), more ? rows.last?.0 : nil)
    }

    /// Per campaign, variant and arm: the count of each event type, and the purchases (and revenue, in minor
    /// units) whose claimed treatments name that campaign and variant, each purchase once however many of
    /// its treatments name them. Demo events are counted apart.
    public func summary(workspace: String) throws(SQLiteError) -> JSONValue {
        struct Key: Hashable {
            var campaign: String
            var variant: String
            var arm: String
            var demo: Bool
        }
        var counts: [Key: [(String, Int64)]] = [:]
        var purchases: [Key: (count: Int64, revenue: Int64)] = [:]
        try database.withReader { connection throws(SQLiteError) in
            let grouped = try connection.prepare(
                """
                SELECT campaign_id, variant_id, arm, demo, type, count(*) FROM events
                WHERE workspace_key = ? AND campaign_id IS NOT NULL
                GROUP BY campaign_id, variant_id, arm, demo, type ORDER BY campaign_id, variant_id, arm, type
                """)
            try grouped.bind([.text(workspace)])
            while try grouped.step() {
                let key = Key(
                    campaign: grouped.text(0) ?? "", variant: grouped.text(1) ?? "", arm: grouped.text(2) ?? "",
                    demo: grouped.int64(3) != 0)
                counts[key, default: []].append((grouped.text(4) ?? "", grouped.int64(5)))
            }
            let attributed = try connection.prepare(
                """
                SELECT t.campaign_id, t.variant_id, e.demo, count(*), CAST(total(e.total_minor) AS INTEGER)
                FROM (SELECT DISTINCT event_seq, campaign_id, variant_id FROM purchase_treatments
                      WHERE workspace_key = ?) t
                JOIN events e ON e.seq = t.event_seq GROUP BY t.campaign_id, t.variant_id, e.demo
                """)
            try attributed.bind([.text(workspace)])
            while try attributed.step() {
                let key = Key(
                    campaign: attributed.text(0) ?? "", variant: attributed.text(1) ?? "", arm: "treatment",
                    demo: attributed.int64(2) != 0)
                purchases[key] = (attributed.int64(3), attributed.int64(4))
            }
        }
        let keys = Set(counts.keys).union(purchases.keys).sorted {
            ($0.campaign, $0.variant, $0.arm) < ($1.campaign, $1.variant, $1.arm)
        }
        func rows(demo: Bool) -> JSONValue {
            .array(
                keys.filter { $0.demo == demo }.map { key in
                    var typeCounts = JSONObject()
                    for (type, count) in counts[key] ?? [] { typeCounts.set(type, .number(JSONNumber(count))) }
                    let bought = purchases[key] ?? (0, 0)
                    return .object([
                        "campaignID": .string(key.campaign), "variantID": .string(key.variant), "arm": .string(key.arm),
                        "counts": .object(typeCounts), "purchases": .number(JSONNumber(bought.count)),
                        "revenueMinor": .number(JSONNumber(bought.revenue)),
                    ])
                })
        }
        return .object(["workspaceKey": .string(workspace), "campaigns": rows(demo: false), "demo": rows(demo: true)])
    }
}
