import GronaMockCPostgres

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every call into libpq lives in this file: connections, results, cancels and notifications, and the one
/// function that turns a failed libpq call into a Swift error. No libpq type leaves it.

/// One PostgreSQL connection. Not thread-safe (libpq's `PGconn` is not): its owner keeps it behind one lock.
/// Parameters are sent and results asked for in binary format, so no value is ever quoted into SQL and a
/// bytea needs no hex round trip.
final class PostgresConnection {
    private let handle: OpaquePointer
    /// Names of the statements prepared on this connection (a prepared statement lives as long as it).
    private var prepared: Set<String> = []

    /// Connects with libpq's keyword/value pairs, processed in order (a later one overrides an earlier one,
    /// so a `dbname` holding a URL last lets the URL override the defaults before it). The handle is freed
    /// even when connecting fails.
    init(parameters: [(keyword: String, value: String)]) throws(PostgresError) {
        let keywords = parameters.map { strdup($0.keyword) }
        let values = parameters.map { strdup($0.value) }
        defer {
            for pointer in keywords + values { free(pointer) }
        }
        let connection = (keywords.map { $0.map { UnsafePointer($0) } } + [nil]).withUnsafeBufferPointer { names in
            (values.map { $0.map { UnsafePointer($0) } } + [nil]).withUnsafeBufferPointer { settings in
                PQconnectdbParams(names.baseAddress, settings.baseAddress, 1)
            }
        }
        guard let connection else {
            throw PostgresError(sqlState: nil, message: "libpq could not allocate a connection", connectionLost: true)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(sqlState: nil, message: message, connectionLost: true)
        }
        grona_pq_ignore_notices(connection)
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// libpq's version, as `major.minor` (for `--version`).
    static var libraryVersion: String {
        let version = PQlibVersion()
        return "\(version / 10_000).\(version % 10_000)"
    }

    /// False once the connection failed (server gone, connection reset): it must be opened again.
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// The server's process for this connection, as `pg_stat_activity.pid` names it.
    var serverProcessID: Int32 { PQbackendPID(handle) }

    /// Runs one or more statements with no parameters (`BEGIN`, a migration script).
    func execute(_ sql: String) throws(PostgresError) {
        _ = try check(PQexec(handle, sql))
    }

    /// Runs one statement with its parameters; the rows come back in binary format.
    @discardableResult
    func query(_ sql: String, _ binds: PostgresBinds = PostgresBinds()) throws(PostgresError) -> PostgresResult {
        let result = binds.withUnsafeParameters { count, types, values, lengths, formats in
            PQexecParams(handle, sql, count, types, values, lengths, formats, 1)
        }
        return try check(result)
    }

    /// Runs the statement prepared under `name` (preparing `sql` on first use), so that the server parses
    /// and plans the hot path's statements once per connection.
    @discardableResult
    func run(prepared name: String, _ sql: String, _ binds: PostgresBinds) throws(PostgresError) -> PostgresResult {
        if !prepared.contains(name) {
            let result = binds.withUnsafeParameters { count, types, _, _, _ in
                PQprepare(handle, name, sql, count, types)
            }
            _ = try check(result)
            prepared.insert(name)
        }
        let result = binds.withUnsafeParameters { count, _, values, lengths, formats in
            PQexecPrepared(handle, name, count, values, lengths, formats, 1)
        }
        return try check(result)
    }

    /// Runs `COPY … FROM STDIN` (`sql`), its input whatever `produce` passes to the function it is given,
    /// piece after piece, as it makes them: the server parses and inserts the first rows while the next are
    /// encoded. That function returns false once sending failed (then `produce` should stop). Blocking, as
    /// every call here: `PQputCopyData` waits for the socket when the server is behind, and libpq keeps
    /// at most a few pieces in its buffer, so memory stays bounded whatever the group's size. A failure of
    /// the server (a unique violation, say) comes back from the final `PQgetResult`.
    func copyIn(_ sql: String, _ produce: (_ send: ([UInt8]) -> Bool) -> Void) throws(PostgresError) {
        guard let started = PQexec(handle, sql) else {
            throw PostgresError(sqlState: nil, message: Self.message(PQerrorMessage(handle)), connectionLost: isBroken)
        }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            _ = try check(started)
            throw PostgresError(sqlState: nil, message: "the server did not start the COPY", connectionLost: false)
        }
        PQclear(started)
        var sent = true
        produce { piece in
            guard sent, !piece.isEmpty else { return sent }
            sent = piece.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return true }
                return PQputCopyData(handle, base.assumingMemoryBound(to: CChar.self), Int32(clamping: buffer.count))
                    == 1
            }
            return sent
        }
        // Ending the COPY even when a piece failed, so that the connection leaves COPY state; the reason
        // then comes back as the result's error.
        _ = PQputCopyEnd(handle, sent ? nil : "grona-mock could not send the rows")
        var failure: PostgresError?
        while let result = PQgetResult(handle) {
            do {
                _ = try check(result)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        if !sent || isBroken {
            throw PostgresError(sqlState: nil, message: Self.message(PQerrorMessage(handle)), connectionLost: isBroken)
        }
    }

    /// The socket libpq reads, for a loop that waits for notifications (`LISTEN`) with poll or epoll.
    var socket: Int32 { PQsocket(handle) }

    /// Reads what the server sent without blocking, so that `notifications()` sees it.
    func consumeInput() throws(PostgresError) {
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(sqlState: nil, message: Self.message(PQerrorMessage(handle)), connectionLost: true)
        }
    }

    /// The notifications received so far (`NOTIFY` on a channel this connection listens to), oldest first.
    func notifications() -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        while let notify = PQnotifies(handle) {
            received.append(
                PostgresNotification(
                    channel: String(cString: notify.pointee.relname), payload: String(cString: notify.pointee.extra),
                    serverProcessID: notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return received
    }

    /// A way to cancel this connection's running query from another thread.
    func makeCanceller() -> PostgresCanceller? {
        PQgetCancel(handle).map(PostgresCanceller.init)
    }

    /// The result when the call succeeded; otherwise its error (the one place libpq failures become errors).
    private func check(_ result: OpaquePointer?) throws(PostgresError) -> PostgresResult {
        guard let result else {
            throw PostgresError(sqlState: nil, message: Self.message(PQerrorMessage(handle)), connectionLost: isBroken)
        }
        let status = PQresultStatus(result)
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK, status != PGRES_EMPTY_QUERY else {
            return PostgresResult(result)
        }
        let sqlState = grona_pq_sqlstate(result).map { String(cString: $0) }
        let message = Self.message(PQresultErrorMessage(result))
        PQclear(result)
        throw PostgresError(sqlState: sqlState, message: message, connectionLost: isBroken)
    }

    /// libpq's message, one line, without its trailing newline.
    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        let message = text.map { String(cString: $0) } ?? ""
        let lines = message.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }
        return lines.isEmpty ? "no message from libpq" : lines.joined(separator: " ")
    }
}

@available(*, unavailable) extension PostgresConnection: Sendable {}

/// A query's rows, in binary format, freed with the value.
final class PostgresResult {
    private let handle: OpaquePointer

    fileprivate init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    var rowCount: Int { Int(PQntuples(handle)) }

    /// Rows an INSERT, UPDATE or DELETE touched.
    var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) == 1 }

    /// The value's bytes, as the server sent them (empty for NULL).
    func withBytes<T>(_ row: Int, _ column: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let count = Int(PQgetlength(handle, Int32(row), Int32(column)))
        guard let value = PQgetvalue(handle, Int32(row), Int32(column)) else {
            return body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return body(UnsafeRawBufferPointer(start: value, count: count))
    }
}

/// Cancels the query running on one connection, from any thread: `PQcancel` is documented as safe to call
/// from another thread (its `PGcancel` is read-only once made), unlike everything on `PGconn`.
final class PostgresCanceller: @unchecked Sendable {
    private let handle: OpaquePointer

    fileprivate init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQfreeCancel(handle) }

    /// Asks the server to cancel the running query; nothing happens when none runs.
    func cancel() {
        var message = [CChar](repeating: 0, count: 256)
        _ = PQcancel(handle, &message, Int32(message.count))
    }
}
