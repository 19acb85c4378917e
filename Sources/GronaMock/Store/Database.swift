import GronaHTTP
import GronaJSON
import Synchronization

/// The grona-mock SQLite database: opened once, migrated to the current schema, its connections shared behind
/// locks.
///
/// One writing connection (the event writer and the rare revision write), and a few reading ones: in WAL mode
/// readers never wait for the writer nor for each other, so a long violations scan does not hold up a listing.
///
/// `@unchecked Sendable` is sound because no connection is ever used without holding its own lock:
/// `withConnection` and `withReader` are the only ways to reach one, and `interrupt` is the one SQLite call
/// documented as safe from another thread.
public final class Database: @unchecked Sendable {
    private let writeLock = Mutex(())
    private let writer: SQLiteConnection
    /// Reading connections, each with its own lock; empty for an in-memory database, which exists only on
    /// its one connection.
    private let readers: [Reader]
    private let nextReader = Atomic<Int>(0)
    public let path: String

    /// Opens or creates the database at `path` (`:memory:` for a private one) and applies migrations.
    public init(path: String, readers count: Int = 4) throws(SQLiteError) {
        let connection = try SQLiteConnection(path: path)
        try connection.enableWriteAheadLog()
        try connection.execute("PRAGMA synchronous=NORMAL")
        try Schema.migrate(connection)
        self.path = path
        writer = connection
        var readers: [Reader] = []
        // An in-memory database (however it was named) exists only on the writing connection.
        if connection.fileName != nil {
            for _ in 0..<max(1, count) { readers.append(Reader(try SQLiteConnection(path: path))) }
        }
        self.readers = readers
    }

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

    /// The linked SQLite's version, for `--version`.
    public static var libraryVersion: String { SQLiteConnection.libraryVersion }
}

/// Schema versions, applied in order and recorded in `PRAGMA user_version`; a database from a newer
/// grona-mock is refused rather than guessed at.
enum Schema {
    static let migrations: [String] = [
        // 1: configuration revisions, so that a revision never goes back while the database persists
        // (contract §4) and a revision is served byte-identical across restarts.
        """
        CREATE TABLE config_revisions (
            workspace_key TEXT PRIMARY KEY,
            revision INTEGER NOT NULL,
            content_hash BLOB NOT NULL,
            issued_at INTEGER NOT NULL,
            document BLOB NOT NULL
        ) STRICT;
        """,
        // 2: received events, the purchase treatments they claim, and rejected events with their reasons
        // (contract §7). `seq` is arrival order and the inspection cursor.
        """
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY,
            workspace_key TEXT NOT NULL,
            event_id TEXT NOT NULL,
            type TEXT NOT NULL,
            timestamp INTEGER NOT NULL,
            received_at INTEGER NOT NULL,
            corrected_timestamp INTEGER NOT NULL,
            install_id TEXT NOT NULL,
            customer_id TEXT,
            session_id TEXT,
            visit_id TEXT,
            campaign_id TEXT,
            variant_id TEXT,
            arm TEXT,
            placement TEXT,
            demo INTEGER NOT NULL,
            config_revision INTEGER,
            total_minor INTEGER,
            json BLOB NOT NULL
        ) STRICT;
        CREATE UNIQUE INDEX events_by_id ON events (workspace_key, event_id);
        CREATE INDEX events_by_campaign ON events (workspace_key, campaign_id, variant_id);
        CREATE INDEX events_by_type ON events (workspace_key, type);
        CREATE TABLE purchase_treatments (
            event_seq INTEGER NOT NULL,
            workspace_key TEXT NOT NULL,
            campaign_id TEXT NOT NULL,
            variant_id TEXT NOT NULL,
            placement TEXT NOT NULL,
            type TEXT NOT NULL,
            value_milli INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX purchase_treatments_by_event ON purchase_treatments (event_seq);
        CREATE TABLE rejected_events (
            seq INTEGER PRIMARY KEY,
            workspace_key TEXT NOT NULL,
            batch_index INTEGER NOT NULL,
            event_id TEXT,
            field TEXT NOT NULL,
            reason TEXT NOT NULL,
            received_at INTEGER NOT NULL,
            install_id TEXT NOT NULL,
            json BLOB NOT NULL
        ) STRICT;
        CREATE INDEX rejected_by_workspace ON rejected_events (workspace_key);
        """,
        // Version 2: one row that health rewrites and commits, to learn whether events can be stored now.
        """
        CREATE TABLE storage_probe (id INTEGER PRIMARY KEY CHECK (id = 1), writes INTEGER NOT NULL) STRICT;
        """,
    ]

    /// Applies what is missing, in one IMMEDIATE transaction that reads the version inside it, so two
    /// processes opening a new file at once (a server and `config sign`) cannot both migrate it.
    static func migrate(_ connection: SQLiteConnection) throws(SQLiteError) {
        do {
            try connection.transaction {
                let current = Int(try connection.scalarText("PRAGMA user_version") ?? "0") ?? 0
                guard current <= migrations.count else {
                    throw SQLiteError(
                        code: 1,
                        message: "the database has schema version \(current), newer than this grona-mock knows "
                            + "(\(migrations.count)); use a newer grona-mock or another --db file")
                }
                for version in current..<migrations.count {
                    try connection.execute(migrations[version])
                }
                if current < migrations.count {
                    try connection.execute("PRAGMA user_version = \(migrations.count)")
                }
            }
        } catch let error as SQLiteError {
            throw error
        } catch {
            throw SQLiteError(code: 1, message: "migrating the database: \(error)")
        }
    }
}
