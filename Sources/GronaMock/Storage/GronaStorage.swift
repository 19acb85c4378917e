/// Where the engine keeps what outlives a request: received and rejected events, and configuration revisions.
///
/// The engine owns this protocol and everything around it: the one writer thread and its group commit
/// (`EventWriter`), the health probe's coalescing, the JSON the inspection API answers with. A backend only
/// stores and reads, so a second backend (PostgreSQL) repeats no policy. `GronaMockSQLite` is the default
/// backend; `Tests/GronaMockStorageConformance` is the suite every backend passes.
///
/// Threads: `commit`, `eventCount` and `dropOldestEvents` are called from the engine's one writer thread only,
/// never concurrently with each other. Every other method may be called from any thread at any time, also
/// while a commit runs (reads see committed data only). Nothing here runs on an event loop.
public protocol GronaStorage: AnyObject, Sendable {
    // MARK: Writing (the writer thread only)

    /// Applies `changes` and returns one outcome per change, in order: in one transaction, all or nothing, or
    /// (PostgreSQL's groups side by side) in several, when a change whose transaction failed is answered
    /// `.failed` and the others were stored. When it throws, nothing of the group is stored. An event whose `eventID` is already stored for its
    /// workspace is a duplicate, counted and not stored again (contract §7).
    func commit(_ changes: [StorageChange]) throws(StorageError) -> [StorageChangeOutcome]

    /// Upkeep the backend does after each group's answers are sent, so that no answer waits for it; it runs
    /// on the writer thread between groups, so it must be short: SQLite folds its campaign counts every few
    /// thousand events here, and asks its checkpoint thread to copy the write-ahead log back. Its failure is
    /// only logged.
    func maintainAfterCommit() throws(StorageError)

    /// How many events are stored (for `--max-events`, read once at start and after a delete).
    func eventCount() throws(StorageError) -> Int

    /// `--max-events`: drops the `count` oldest events (and what hangs off them), and the rejected events
    /// older than the newest `keepingRejected`, in one transaction.
    func dropOldestEvents(_ count: Int, keepingRejected: Int) throws(StorageError)

    // MARK: Reading (any thread)

    /// The sequence of the newest stored event, 0 when there is none.
    func lastSequence() throws(StorageError) -> Int64

    /// One page of stored events matching `filter`, in sequence order.
    func events(matching filter: EventFilter, page: EventPage) throws(StorageError) -> StoredPage<StoredEventRow>

    /// How many stored events match `filter`.
    func count(matching filter: EventFilter) throws(StorageError) -> Int

    /// How many stored events match `filter`, counting on from `tally` (an earlier answer for the same filter):
    /// only the events stored since are read, unless events were deleted since, when all are counted again.
    /// The long-polls count this way after every commit (`EventWaiters`), so that waiting costs time linear in
    /// the events stored meanwhile, not in the workspace once per commit. A backend that does not track
    /// deletions may always count them all.
    func count(matching filter: EventFilter, continuing tally: EventTally?) throws(StorageError) -> EventTally

    /// Reads the events `scan` selects in visit order (see `EventScan` for the order and bounds), handing each
    /// to `body` until it returns false or the events run out. One query, streamed: memory is one row, time
    /// linear in the rows read, and the start is a seek (an index on workspace, install, visit and sequence),
    /// so a scan resumed deep in the stream costs no more than one from the start. `body` runs on the calling
    /// thread and must not call back into the storage.
    func scanEvents(_ scan: EventScan, _ body: (StoredEventColumns) -> Bool) throws(StorageError)

    /// `scanEvents`, packed (`StoredEventBatch`): each row is appended to `batch`, then `body` is called with it,
    /// until `body` returns false or the events run out. `body` takes rows out as it likes (hands the batch on,
    /// empties it); the storage only appends, so the rows `body` left are in `batch` when the scan returns. Same
    /// rows, order and bounds as `scanEvents`, without an allocation per row: what the violations check reads on
    /// another thread (`PrefetchingScan`). A backend without its own packing gets `scanEvents` packed row by row.
    func scanEvents(
        _ scan: EventScan, into batch: inout StoredEventBatch, _ body: (inout StoredEventBatch) -> Bool
    ) throws(StorageError)

    /// One page of rejected events, of one workspace or all.
    func rejectedEvents(workspace: String?, page: EventPage) throws(StorageError) -> StoredPage<StoredRejectedEvent>

    /// Event counts per campaign, variant, arm, demo flag and type, and the purchases attributed to each
    /// campaign and variant through their claimed treatments (each purchase once per campaign and variant).
    func campaignCounts(workspace: String) throws(StorageError) -> CampaignCounts

    /// Bytes the storage takes on disk, when it knows (for metrics).
    func bytesUsed() -> Int64?

    // MARK: Configuration revisions (contract §4: a revision never goes back)

    /// The stored revision when its content hash is `contentHash`; otherwise `make(next revision)` is
    /// called, its result stored and returned. Atomic: two writers (a server and `config sign`, or two
    /// instances) never hand out the same number for different content.
    func configRevision(
        for workspaceKey: String, contentHash: [UInt8], make: (Int64) throws -> StoredConfigRevision
    ) throws -> StoredConfigRevision

    /// The latest stored revision of a workspace, if any.
    func latestConfigRevision(for workspaceKey: String) throws(StorageError) -> StoredConfigRevision?

    // MARK: Lifecycle

    /// At shutdown: stops the reads running now and refuses later ones (their callers see an error), so a
    /// long scan does not hold the exit. Writes are never interrupted: an acknowledged batch must commit.
    func interruptReads()

    /// Where the data lives, for logs and health: a path, or a URL without its password.
    var location: String { get }
}

/// One change in a group commit.
public enum StorageChange: Sendable {
    /// A request's validated events and rejections.
    case batch(EventBatch)
    /// Every event of one workspace, or of all when nil, and their rejections.
    case deleteEvents(workspaceKey: String?)
    /// A one-row write, committed like any batch: health asks whether events can be stored now.
    case probe
}

/// What one change did.
public enum StorageChangeOutcome: Sendable, Equatable {
    case batch(EventBatchResult)
    case deleted(events: Int)
    case probed
    /// This change was not made, while the others of the commit were: a backend that writes one commit in
    /// several transactions (PostgreSQL's groups side by side) when one of them failed. Its client is answered
    /// the error; nothing of the change is stored.
    case failed(StorageError)
}

/// One page of a listing: the rows, and the cursor of the next page when there is one.
public struct StoredPage<Row: Sendable>: Sendable {
    public var rows: [Row]
    /// The sequence to pass as the next page's cursor; nil on the last page.
    public var nextCursor: Int64?

    public init(rows: [Row], nextCursor: Int64?) {
        self.rows = rows
        self.nextCursor = nextCursor
    }
}

/// A running count of the events matching a filter: how many, up to which sequence, and under which generation
/// of deletions (a count taken before a deletion cannot be continued: the events it counted may be gone).
///
/// The count is kept by block of sequence numbers, so that when the oldest events are dropped (`--max-events`)
/// the blocks they emptied are forgotten and only the block they cut into is counted again, rather than every
/// event kept.
public struct EventTally: Sendable, Equatable {
    public var count: Int
    /// The newest sequence the count covers.
    public var through: Int64
    /// The storage's deletion generation when counted.
    public var deletions: Int64
    /// The oldest sequence stored when counted: a newer one means the oldest events were dropped since.
    public var oldest: Int64
    /// Matching events by block of sequence numbers (the block's first sequence divided by the backend's block
    /// size); empty for a backend that counts everything each time.
    public var blocks: [Int64: Int]

    public init(count: Int, through: Int64, deletions: Int64, oldest: Int64 = 0, blocks: [Int64: Int] = [:]) {
        self.count = count
        self.through = through
        self.deletions = deletions
        self.oldest = oldest
        self.blocks = blocks
    }
}

/// Why storage could not do what it was asked, as a sentence with no secrets in it.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Busy, locked, full, unreachable, or shutting down: asking again later may succeed.
        case unavailable
        /// The data was written by a newer grona-mock.
        case schemaTooNew
        /// Anything else the backend reports.
        case failed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

extension GronaStorage {
    public func scanEvents(
        _ scan: EventScan, into batch: inout StoredEventBatch, _ body: (inout StoredEventBatch) -> Bool
    ) throws(StorageError) {
        try scanEvents(scan) { row in
            batch.append(row)
            return body(&batch)
        }
    }
}
