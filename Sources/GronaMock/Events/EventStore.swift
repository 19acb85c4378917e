import GronaMockJSON
import GronaMockPlatform

/// Received events, over whichever `GronaStorage` backend the server was given: written through the one
/// writer thread, read from any thread off the event loops, and shaped here into the inspection API's JSON
/// so that every backend answers alike.
package final class EventStore: Sendable {
    package let storage: any GronaStorage
    let writer: EventWriter?

    /// A store that writes: the server's. `publish` hears of every commit and deletion (the engine's event
    /// stream).
    init(
        storage: any GronaStorage, maxEvents: Int?, logger: Logger, metrics: Metrics? = nil,
        publish: @escaping @Sendable (EngineEvent) -> Void
    ) {
        self.storage = storage
        writer = EventWriter(storage: storage, maxEvents: maxEvents, logger: logger, metrics: metrics, publish: publish)
    }

    /// The storage's size on disk, 0 when it does not know.
    package func databaseBytes() -> Int64 { storage.bytesUsed() ?? 0 }

    /// A store that only reads: the command line's, on the database file, with or without a server running.
    package init(readingFrom storage: any GronaStorage) {
        self.storage = storage
        writer = nil
    }

    func stop() { writer?.stop() }

    /// Whether events can be stored now: a one-row write, committed through the writer like any batch.
    /// A store that only reads answers that it cannot write.
    ///
    /// One probe serves every caller that asks while it runs, and its answer is reused for
    /// `probeReuse`, so a flood of health checks costs at most one commit per interval.
    func probeStorage(_ completion: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        guard let writer else { return completion(.failure(StorageError(.failed, "read-only store"))) }
        let now = MonotonicClock.now()
        let (cached, start) = probes.withLock { probes -> (Result<Void, StorageError>?, Bool) in
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
        var waiting: [@Sendable (Result<Void, StorageError>) -> Void] = []
        var inFlight = false
        var last: (at: UInt64, result: Result<Void, StorageError>)?
    }

    private let probes = Mutex(Probes())

    /// Stops a long read (a scan) that would otherwise hold shutdown.
    func interruptReads() { storage.interruptReads() }

    /// Jobs waiting for the writer now (0 for a store that only reads).
    var writerQueueDepth: Int { writer?.queueDepth ?? 0 }

    /// The writer's last verdict on the database and its last error.
    var storageStatus: EventWriter.Status { writer?.status.withLock { $0 } ?? EventWriter.Status(writable: false) }

    // MARK: - Reading

    /// The sequence of the newest stored event (0 when there is none).
    package func lastSequence() throws(StorageError) -> Int64 { try storage.lastSequence() }

    /// Stored events matching `filter`, one page, each as its JSON plus the server's fields.
    package func events(_ filter: EventFilter, page: EventPage) throws(StorageError) -> (
        events: [JSONValue], nextCursor: Int64?
    ) {
        let stored = try storage.events(matching: filter, page: page)
        return (stored.rows.map(Self.json), stored.nextCursor)
    }

    /// A stored event as the inspection API shows it: what the SDK sent, plus the server's fields.
    static func json(_ event: StoredEventRow) -> JSONValue {
        var object = (try? JSONParser().parse(event.json).objectValue) ?? JSONObject()
        object.set("sequence", .number(JSONNumber(event.sequence)))
        object.set("workspaceKey", .string(event.workspaceKey))
        object.set("installID", .string(event.installID))
        object.set("receivedAt", .number(JSONNumber(event.receivedAt)))
        object.set("correctedTimestamp", .number(JSONNumber(event.correctedTimestamp)))
        return .object(object)
    }

    /// How many stored events match.
    package func count(_ filter: EventFilter) throws(StorageError) -> Int { try storage.count(matching: filter) }

    /// How many stored events match, counted on from `tally` (see `GronaStorage.count(matching:continuing:)`).
    func count(_ filter: EventFilter, continuing tally: EventTally?) throws(StorageError) -> EventTally {
        try storage.count(matching: filter, continuing: tally)
    }

    /// Rejected events, with their reasons, oldest first.
    package func rejected(workspace: String?, page: EventPage) throws(StorageError) -> (
        events: [JSONValue], nextCursor: Int64?
    ) {
        let stored = try storage.rejectedEvents(workspace: workspace, page: page)
        let events = stored.rows.map { row -> JSONValue in
            let record = row.record
            return .object([
                "sequence": .number(JSONNumber(row.sequence)), "workspaceKey": .string(record.workspaceKey),
                "index": .number(JSONNumber(record.index)), "eventID": record.eventID.map(JSONValue.string) ?? .null,
                "field": .string(record.field), "reason": .string(record.reason),
                "receivedAt": .number(JSONNumber(record.receivedAt)), "installID": .string(record.installID),
                "event": (try? JSONParser().parse(record.json)) ?? .null,
            ])
        }
        return (events, stored.nextCursor)
    }

    /// Per campaign, variant and arm: the count of each event type, and the purchases (and revenue, in minor
    /// units) whose claimed treatments name that campaign and variant, each purchase once however many of
    /// its treatments name them. Demo events are counted apart.
    package func summary(workspace: String) throws(StorageError) -> JSONValue {
        struct Key: Hashable {
            var campaign: String
            var variant: String
            var arm: String
            var demo: Bool
        }
        let figures = try storage.campaignCounts(workspace: workspace)
        var counts: [Key: [(String, Int64)]] = [:]
        for row in figures.types {
            let key = Key(campaign: row.campaignID, variant: row.variantID, arm: row.arm, demo: row.demo)
            counts[key, default: []].append((row.type, row.count))
        }
        var purchases: [Key: (count: Int64, revenue: Int64)] = [:]
        for row in figures.attributed {
            let key = Key(campaign: row.campaignID, variant: row.variantID, arm: Arm.treatment.rawValue, demo: row.demo)
            purchases[key] = (row.purchases, row.revenueMinor)
        }
        let keys = Set(counts.keys).union(purchases.keys).sorted {
            ($0.campaign, $0.variant, $0.arm) < ($1.campaign, $1.variant, $1.arm)
        }
        func rows(demo: Bool) -> JSONValue {
            .array(
                keys.filter { $0.demo == demo }.map { key in
                    var typeCounts = JSONObject()
                    for (type, count) in (counts[key] ?? []).sorted(by: { $0.0 < $1.0 }) {
                        typeCounts.set(type, .number(JSONNumber(count)))
                    }
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
