import GronaMock
import GronaMockCSQLite

/// Every call into SQLite lives in this file: connections, statements, and the one function that turns
/// SQLite's result codes into Swift errors. No SQLite type leaves it.

/// A failed SQLite call: what was being done, SQLite's result code and its message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    let code: Int32
    let message: String

    var description: String { "SQLite error \(code): \(message)" }

    /// The error for `code` on `connection` (the one place result codes become errors).
    /// `operation` is built only on failure: this runs for every bind of every row on the hot path.
    static func check(
        _ code: Int32, _ connection: OpaquePointer?, _ operation: @autoclosure () -> String
    ) throws(SQLiteError) {
        guard code != SQLITE_OK && code != SQLITE_ROW && code != SQLITE_DONE else { return }
        let detail =
            connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        throw SQLiteError(code: code, message: "\(operation()): \(detail)")
    }
}

extension SQLiteError {
    /// Not an SQLite result code: the database was migrated by a newer grona-mock.
    static let newerSchema: Int32 = -1
}

extension StorageError {
    /// What an SQLite failure means to the engine (the one place SQLite's codes are judged): busy, locked,
    /// full, I/O, read-only and interrupted can pass, so a reader may ask again (a 503 with `Retry-After`).
    init(_ error: SQLiteError) {
        let primary = error.code & 0xff
        let passing: Set<Int32> = [
            SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOMEM, SQLITE_READONLY, SQLITE_INTERRUPT, SQLITE_IOERR, SQLITE_FULL,
            SQLITE_CANTOPEN, SQLITE_PROTOCOL,
        ]
        let kind: StorageError.Kind =
            error.code == SQLiteError.newerSchema ? .schemaTooNew : passing.contains(primary) ? .unavailable : .failed
        self.init(kind, error.description)
    }
}

/// A value to bind or read.
enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// One SQLite connection. Not thread-safe by design (opened with SQLITE_OPEN_NOMUTEX): its owner keeps it
/// on one thread or behind one lock.
final class SQLiteConnection {
    private let handle: OpaquePointer

    /// Makes the statement running on this connection (from another thread) stop with SQLITE_INTERRUPT:
    /// sqlite3_interrupt is the one call SQLite allows from a thread other than the connection's user.
    func interrupt() { sqlite3_interrupt(handle) }

    /// The main database's file, or nil for an in-memory or temporary one (`:memory:`, `file::memory:`,
    /// `file:x?mode=memory`, ""), which exists only on this connection.
    var fileName: String? {
        guard let name = sqlite3_db_filename(handle, "main"), name.pointee != 0 else { return nil }
        return String(cString: name)
    }

    /// Opens (creating if needed) the database at `path`; `:memory:` is a private in-memory database.
    /// The handle is closed even when opening fails half-way.
    init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        _ = Self.configured
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let status = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(handle)
            throw SQLiteError(code: status, message: "opening \(path): \(message)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5000)
        sqlite3_extended_result_codes(handle, 1)
    }

    /// Process-wide settings, applied once before the first connection opens (SQLite takes them only before it
    /// initializes): no memory statistics, whose global mutex every allocation would take.
    private static let configured: Void = { _ = grona_sqlite3_disable_memory_statistics() }()

    /// How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    /// Statements prepared once and reused, by the address of their SQL literal: the writer's inserts run
    /// for every event, and hashing their text each time cost more than the lookup saves.
    private var cache: [UInt: SQLiteStatement] = [:]

    /// The log's length after the last commit and the commit checkpoint's bound, once `trackWriteAheadLog`
    /// was called.
    private var walState: UnsafeMutablePointer<grona_sqlite3_wal_state>?

    /// Finalizes the cached statements before the handle closes (close_v2 would otherwise defer it).
    deinit {
        cache = [:]
        sqlite3_close_v2(handle)
        walState?.deallocate()
    }

    /// From now on `writeAheadLogPages` says how long the write-ahead log is after each commit, and a commit
    /// that takes it past `checkpointPages` checkpoints it (the bound SQLite's automatic checkpoint kept at
    /// 1,000 pages; see `WriteAheadLogLimits`).
    func trackWriteAheadLog(checkpointingAt checkpointPages: Int32) {
        guard walState == nil else { return }
        let state = UnsafeMutablePointer<grona_sqlite3_wal_state>.allocate(capacity: 1)
        state.initialize(to: grona_sqlite3_wal_state(pages: 0, checkpointPages: max(1, checkpointPages)))
        walState = state
        grona_sqlite3_track_wal_pages(handle, state)
    }

    /// Pages in the write-ahead log after this connection's last commit; 0 when not tracked.
    var writeAheadLogPages: Int { Int(walState?.pointee.pages ?? 0) }

    /// The statement for the literal `sql`, prepared on first use and kept for the connection's life.
    func cached(_ sql: StaticString) throws(SQLiteError) -> SQLiteStatement {
        let key = UInt(bitPattern: sql.utf8Start)
        if let statement = cache[key] { return statement }
        let statement = try prepare(sql.description)
        cache[key] = statement
        return statement
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_free(message)
            throw SQLiteError(code: status, message: text)
        }
    }

    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        try SQLiteError.check(status, handle, "preparing \(sql.prefix(60))")
        guard let statement else { throw SQLiteError(code: SQLITE_MISUSE, message: "empty statement") }
        return SQLiteStatement(statement, connection: handle)
    }

    /// The first column of the first row of `sql`, as text.
    func scalarText(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.text(0) : nil
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Turns on write-ahead logging and checks that SQLite agreed: it silently keeps the old mode when it
    /// cannot switch (GRDB does the same check). In-memory databases answer `memory`, which is fine.
    func enableWriteAheadLog() throws(SQLiteError) {
        let mode = try scalarText("PRAGMA journal_mode=WAL")?.lowercased()
        guard mode == "wal" || mode == "memory" else {
            throw SQLiteError(code: SQLITE_ERROR, message: "journal_mode=WAL answered \(mode ?? "nothing")")
        }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

/// A prepared statement, finalized when released.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let connection: OpaquePointer

    fileprivate init(_ statement: OpaquePointer, connection: OpaquePointer) {
        self.statement = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(statement) }

    /// Clears earlier bindings and binds `values` to parameters 1…n.
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let status: Int32
        switch value {
        case .null:
            status = sqlite3_bind_null(statement, index)
        case .integer(let number):
            status = sqlite3_bind_int64(statement, index, number)
        case .real(let number):
            status = sqlite3_bind_double(statement, index, number)
        case .text(var text):
            status = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    grona_sqlite3_bind_text_copy(statement, index, $0.baseAddress, Int32($0.count))
                }
            }
        case .blob(let bytes):
            status = bytes.withUnsafeBytes {
                grona_sqlite3_bind_blob_copy(statement, index, $0.baseAddress, Int32($0.count))
            }
        }
        try SQLiteError.check(status, connection, "binding parameter \(index)")
    }

    /// Binds `count` bytes at `start` as text (or, `asBlob`, as a blob) without a copy (`SQLITE_STATIC`): the
    /// bytes must stay alive and unchanged until the statement has run and `clearBindings` (or another bind
    /// of the parameter) has dropped them. The writer binds a batch's packed rows this way.
    func bindStatic(_ start: UnsafePointer<UInt8>, count: Int, at index: Int32, asBlob: Bool = false)
        throws(SQLiteError)
    {
        guard let length = Int32(exactly: count) else {
            throw SQLiteError(code: SQLITE_TOOBIG, message: "binding parameter \(index): \(count) bytes")
        }
        let status =
            asBlob
            ? sqlite3_bind_blob(statement, index, start, length, nil)
            : start.withMemoryRebound(to: CChar.self, capacity: count) {
                sqlite3_bind_text(statement, index, $0, length, nil)
            }
        try SQLiteError.check(status, connection, "binding parameter \(index)")
    }

    /// Binds an integer, or NULL when absent.
    func bind(_ number: Int64?, at index: Int32) throws(SQLiteError) {
        let status = number.map { sqlite3_bind_int64(statement, index, $0) } ?? sqlite3_bind_null(statement, index)
        try SQLiteError.check(status, connection, "binding parameter \(index)")
    }

    func bindNull(at index: Int32) throws(SQLiteError) {
        try SQLiteError.check(sqlite3_bind_null(statement, index), connection, "binding parameter \(index)")
    }

    /// Runs a write whose parameters are bound, then resets it, keeping the bindings.
    func runBound() throws(SQLiteError) {
        while try step() {}
        sqlite3_reset(statement)
    }

    /// Drops every binding (to NULL), so no parameter points at bytes bound with `bindStatic` any longer.
    func clearBindings() { sqlite3_clear_bindings(statement) }

    /// Advances: true when a row is ready to read, false when done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(statement)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        sqlite3_reset(statement)
        try SQLiteError.check(status, connection, "running a statement")
        return false
    }

    /// How many virtual machine steps the statement took so far (`SQLITE_STMTSTATUS_VM_STEP`): a measure of
    /// the rows it examined, those it skipped included, for tests that bound a scan's work.
    var virtualMachineSteps: Int { Int(sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_VM_STEP, 0)) }

    /// Runs the statement with `values` to completion, for writes.
    func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(statement)
    }

    func reset() { sqlite3_reset(statement) }

    /// The first column of the first row as an integer (nil for no row or NULL), then resets: for a cached
    /// statement asked once per commit.
    func int64Scalar() throws(SQLiteError) -> Int64? {
        defer { sqlite3_reset(statement) }
        guard try step(), !isNull(0) else { return nil }
        return int64(0)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column's bytes (text or blob), valid only inside `body`; nil for NULL.
    ///
    /// Read through the column's value: one `sqlite3_column_*` call (each checks the statement and its
    /// connection's error state) instead of two, then the value's own accessors. A scan in visit order reads ten
    /// such columns a row (issue 32). The value is *unprotected* (SQLite's word): safe because a connection is
    /// used by one thread at a time (opened with SQLITE_OPEN_NOMUTEX, `init`). The accessors could convert a
    /// number to text, and an allocation failure there would read as NULL rather than fail the step; the columns
    /// read this way are TEXT or BLOB in a STRICT table, so nothing is converted.
    func withBytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer?) -> T) -> T {
        guard let value = sqlite3_column_value(statement, column) else { return body(nil) }
        // The pointer first, then the count: SQLite's documented order (no conversion in between). A null
        // pointer is NULL or an empty value; only then is the type asked.
        guard let pointer = sqlite3_value_blob(value) else {
            let isNull = sqlite3_value_type(value) == SQLITE_NULL
            return body(isNull ? nil : UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return body(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(value))))
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
