import Synchronization

/// The grona-mock SQLite database: opened once, migrated to the current schema, shared behind a lock.
///
/// Writes are rare outside event ingestion (a new configuration revision now and then), so one locked
/// connection serves them; WAL mode lets the command line read while a server writes.
public final class Database: @unchecked Sendable {
    /// Every use of `connection` holds this lock; that is what makes the unchecked Sendable sound.
    private let lock = Mutex(())
    private let connection: SQLiteConnection
    public let path: String

    /// Opens or creates the database at `path` (`:memory:` for a private one) and applies migrations.
    public init(path: String) throws(SQLiteError) {
        let connection = try SQLiteConnection(path: path)
        try connection.enableWriteAheadLog()
        try connection.execute("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON")
        try Schema.migrate(connection)
        self.path = path
        self.connection = connection
    }

    /// Runs `body` with the connection, holding the lock.
    func withConnection<T, E: Error>(_ body: (SQLiteConnection) throws(E) -> T) throws(E) -> T {
        try lock.withLock { _ throws(E) in try body(connection) }
    }

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
        """
    ]

    static func migrate(_ connection: SQLiteConnection) throws(SQLiteError) {
        let current = Int(try connection.scalarText("PRAGMA user_version") ?? "0") ?? 0
        guard current <= migrations.count else {
            throw SQLiteError(
                code: 1,
                message: "the database has schema version \(current), newer than this grona-mock knows "
                    + "(\(migrations.count)); use a newer grona-mock or another --db file")
        }
        for version in current..<migrations.count {
            do {
                try connection.transaction {
                    try connection.execute(migrations[version])
                    try connection.execute("PRAGMA user_version = \(version + 1)")
                }
            } catch let error as SQLiteError {
                throw error
            } catch {
                throw SQLiteError(code: 1, message: "migration \(version + 1): \(error)")
            }
        }
    }
}
