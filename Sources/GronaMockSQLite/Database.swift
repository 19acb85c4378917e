import GronaMockPlatform

/// The SQLite database behind `SQLiteStorage`: opened once, migrated to the current schema, its connections shared behind
/// locks.
///
/// One writing connection (the event writer and the rare revision write), and a few reading ones: in WAL mode
/// readers never wait for the writer nor for each other, so a long violations scan does not hold up a listing.
///
/// `@unchecked Sendable` is sound because no connection is ever used without holding its own lock:
/// `withConnection` and `withReader` are the only ways to reach one, and `interrupt` is the one SQLite call
/// documented as safe from another thread.
final class Database: @unchecked Sendable {
    private let writeLock = Mutex(())
    private let writer: SQLiteConnection
    /// Reading connections, each with its own lock; empty for an in-memory database, which exists only on
    /// its one connection.
    private let readers: [Reader]
    private let nextReader = Atomic<Int>(0)
    let path: String
    /// Copies the write-ahead log back beside the writer; nil for an in-memory database, which has no log.
    let checkpointer: Checkpointer?
    let logLimits: WriteAheadLogLimits

    /// Opens or creates the database at `path` (`:memory:` for a private one) and applies migrations.
    init(
        path: String, readers count: Int = 4, logLimits: WriteAheadLogLimits = .standard,
        beforeCheckpoint: @escaping @Sendable () -> Void = {}
    ) throws(SQLiteError) {
        let connection = try SQLiteConnection(path: path)
        try connection.enableWriteAheadLog()
        try connection.execute("PRAGMA synchronous=NORMAL")
        try Schema.migrate(connection)
        self.path = path
        self.logLimits = logLimits
        writer = connection
        var readers: [Reader] = []
        // An in-memory database (however it was named) exists only on the writing connection.
        if connection.fileName != nil {
            for _ in 0..<max(1, count) { readers.append(Reader(try SQLiteConnection(path: path))) }
            connection.trackWriteAheadLog(checkpointingAt: logLimits.commitPages)
            checkpointer = try Checkpointer(path: path, beforeCheckpoint: beforeCheckpoint)
        } else {
            checkpointer = nil
        }
        self.readers = readers
    }

    deinit { checkpointer?.stop() }

    /// One reading connection and the lock that every use of it holds.
    private final class Reader {
        private let lock = Mutex(())
        let connection: SQLiteConnection
        init(_ connection: SQLiteConnection) { self.connection = connection }

        /// Runs `body` holding the lock, waiting for it.
        func run<T>(_ body: (SQLiteConnection) throws(SQLiteError) -> T) -> Result<T, SQLiteError> {
            var outcome: Result<T, SQLiteError>?
            lock.withLock { _ in outcome = Result { () throws(SQLiteError) in try body(connection) } }
            return outcome ?? .failure(SQLiteError(code: 1, message: "no result"))
        }

        /// Runs `body` holding the lock if it is free now; nil when another query holds it.
        func runIfFree<T>(_ body: (SQLiteConnection) throws(SQLiteError) -> T) -> Result<T, SQLiteError>? {
            var outcome: Result<T, SQLiteError>?
            _ = lock.withLockIfAvailable { _ in outcome = Result { () throws(SQLiteError) in try body(connection) } }
            return outcome
        }
    }

    /// Runs `body` with the writing connection, holding its lock.
    func withConnection<T, E: Error>(_ body: (SQLiteConnection) throws(E) -> T) throws(E) -> T {
        try writeLock.withLock { _ throws(E) in try body(writer) }
    }

    /// Runs a query on a free reading connection (the writing one for an in-memory database); when every
    /// reader is busy, it waits for one, taken in turn.
    func withReader<T>(_ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        guard !readsStopped.load(ordering: .acquiring) else {
            throw SQLiteError(code: 9, message: "the server is shutting down")
        }
        guard !readers.isEmpty else { return try withConnection(body) }
        // Start at the next reader in turn, so waits spread over them; the counter wraps harmlessly.
        let start = nextReader.add(1, ordering: .relaxed).newValue
        let index = { (offset: Int) in ((start &+ offset) & Int.max) % self.readers.count }
        for offset in 0..<readers.count {
            if let outcome = readers[index(offset)].runIfFree(body) { return try outcome.get() }
        }
        return try readers[index(0)].run(body).get()
    }

    /// At shutdown: stops the query running now and refuses later ones, so that a long paged scan is not
    /// holding the exit; its caller sees an error. Writes are never interrupted: an acknowledged batch must
    /// commit.
    func interruptReads() {
        readsStopped.store(true, ordering: .releasing)
        for reader in readers { reader.connection.interrupt() }
    }

    private let readsStopped = Atomic<Bool>(false)
}
