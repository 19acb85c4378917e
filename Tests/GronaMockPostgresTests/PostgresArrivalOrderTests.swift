import Foundation
import GronaMock
import GronaMockPlatform
import GronaMockTestSupport
import Synchronization
import Testing

@testable import GronaMockPostgres

/// Groups of several instances insert side by side (issue 32, `ArrivalOrder`). What a user checks: a second
/// instance's group is not held up by a first one still in flight; a reader that starts while a group with
/// an earlier sequence is in flight never returns the later events without it (so its cursor never passes
/// an event committed late); two instances copying the same new ids in crossing orders both answer, each id
/// stored once and named a duplicate where it was.
///
/// The "first instance" still in flight is a raw connection doing what an instance's writer does
/// (`ArrivalOrder.enter`, then the COPY), so the test holds its transaction open for as long as it needs.
@Suite("PostgreSQL arrival order", .enabled(if: TestPostgres.isAvailable, TestPostgres.unavailableReason))
struct PostgresArrivalOrderTests {
    @Test("a reader that starts while an earlier group is in flight waits for it, and misses nothing")
    func readerNeverSkipsLateCommit() throws {
        let url = try TestPostgres.freshURL()
        let reader = try PostgresStorage(url: url)
        let other = try PostgresStorage(url: url)
        let late = try TestPostgres.connect(url)
        try late.execute("BEGIN")
        try copyInFlight(["late"], late)

        // The other instance's group takes later sequences and commits while the first is still open.
        let committed = Background { try other.commit([batch(["early-committed"])]) }
        let overlapped = eventually { committed.isDone }
        #expect(overlapped, "the second instance's group waited for the first one's COMMIT")

        let listing = Background { () throws -> [String] in
            try reader.events(matching: EventFilter(), page: EventPage()).rows.map(\.jsonText)
        }
        let last = Background { try reader.lastSequence() }
        // Either the readers wait for the group in flight, or they answered without it (the failure below).
        #expect(try eventually { try waitingOnAnnouncement(url) >= 2 || (listing.isDone && last.isDone) })
        try late.execute("COMMIT")

        #expect(try committed.value() == [.batch(EventBatchResult(accepted: 1, duplicateIndexes: []))])
        #expect(try listing.value() == [#"{"eventID":"late"}"#, #"{"eventID":"early-committed"}"#])
        #expect(try last.value() == (try reader.lastSequence()))
        #expect(try reader.eventCount() == 2)
    }

    @Test("another application's shared advisory lock on the same database never holds a read")
    func foreignAdvisoryLockIgnored() throws {
        let url = try TestPostgres.freshURL()
        let storage = try PostgresStorage(url: url)
        _ = try storage.commit([batch(["one"])])
        // A job queue or a migration tool of another application, holding small keys of its own (the first
        // announcements used single bigint keys, which these are, and a read waited for them for ever).
        let foreign = try TestPostgres.connect(url)
        try foreign.execute("SELECT pg_advisory_lock_shared(2), pg_advisory_lock_shared(1, 2)")
        let listing = Background { () throws -> [String] in
            try storage.events(matching: EventFilter(), page: EventPage()).rows.map(\.jsonText)
        }
        let answered = eventually { listing.isDone }
        // Let go before reading the answer, so that a read that waits fails here rather than hanging.
        try foreign.execute("SELECT pg_advisory_unlock_all()")
        #expect(answered, "the read waited for another application's lock")
        #expect(try listing.value() == [#"{"eventID":"one"}"#])
    }

    @Test("a database whose events sequence hands out numbers in blocks (CACHE above 1) is refused, saying why")
    func cachedSequenceRefused() throws {
        let url = try TestPostgres.freshURL()
        _ = try PostgresStorage(url: url)
        let connection = try TestPostgres.connect(url)
        try connection.execute(#"ALTER SEQUENCE "events_seq_seq" CACHE 20"#)
        let error = #expect(throws: StorageError.self) { try PostgresStorage(url: url) }
        #expect(error?.message.contains("caches 20 numbers") == true, "\(String(describing: error))")
        #expect(error?.message.contains("CACHE 1") == true)
        try connection.execute(#"ALTER SEQUENCE "events_seq_seq" CACHE 1"#)
        _ = try PostgresStorage(url: url)
    }

    @Test("an event acknowledged on one instance is read at once on the other, with a third group in flight")
    func acknowledgedIsReadable() throws {
        let url = try TestPostgres.freshURL()
        let reader = try PostgresStorage(url: url)
        let writer = try PostgresStorage(url: url)
        let inFlight = try TestPostgres.connect(url)
        try inFlight.execute("BEGIN")
        try copyInFlight(["in-flight"], inFlight)
        _ = try writer.commit([batch(["acknowledged"])])
        let listing = Background { () throws -> [String] in
            try reader.events(matching: EventFilter(), page: EventPage()).rows.map(\.jsonText)
        }
        #expect(try eventually { try waitingOnAnnouncement(url) >= 1 || listing.isDone })
        try inFlight.execute("ROLLBACK")
        #expect(try listing.value() == [#"{"eventID":"acknowledged"}"#])
    }

    @Test("two instances copying the same new ids in crossing orders: both answer, each id stored once")
    func crossingDuplicates() throws {
        let url = try TestPostgres.freshURL()
        let instance = try PostgresStorage(url: url)
        let first = try TestPostgres.connect(url)
        try first.execute("BEGIN")
        try copyInFlight(["x"], first)
        // The instance copies y, then waits on x, which the first group holds uncommitted.
        let crossing = Background { try instance.commit([batch(["y", "x"])]) }
        #expect(try eventually { try waitingOnRow(url) >= 1 || crossing.isDone })
        // The first group now copies y: each waits on the other, and PostgreSQL fails one of them.
        let firstStoredY: Bool
        do throws(PostgresError) {
            try copyMore(["y"], first)
            try first.execute("COMMIT")
            firstStoredY = true
        } catch {
            #expect(error.sqlState == "40P01")
            try first.execute("ROLLBACK")
            firstStoredY = false
        }
        let answer = try crossing.value()
        #expect(try instance.eventCount() == 2)
        if firstStoredY {
            #expect(answer == [.batch(EventBatchResult(accepted: 0, duplicateIndexes: [0, 1]))])
        } else {
            #expect(answer == [.batch(EventBatchResult(accepted: 2, duplicateIndexes: []))])
        }
    }

    /// What an instance's writer does in its group's transaction, up to the COMMIT it leaves to the test.
    private func copyInFlight(_ ids: [String], _ connection: PostgresConnection) throws {
        try ArrivalOrder.enter([batch(ids)], connection, by: .copy)
        try copyMore(ids, connection)
    }

    private func copyMore(_ ids: [String], _ connection: PostgresConnection) throws(PostgresError) {
        _ = try PostgresStorage.write(
            [EventBatch(workspaceKey: "acme", accepted: ids.map(event), rejected: [])], connection, by: .copy)
    }

    /// Sessions waiting for an advisory lock: readers settling behind a group in flight.
    private func waitingOnAnnouncement(_ url: String) throws -> Int {
        try waiting(url, on: "advisory")
    }

    /// Sessions waiting for another transaction to end: an insert behind an uncommitted row of the same key.
    private func waitingOnRow(_ url: String) throws -> Int {
        try waiting(url, on: "transactionid")
    }

    private func waiting(_ url: String, on event: String) throws -> Int {
        var binds = PostgresBinds()
        binds.append(event)
        let rows = try TestPostgres.connect(url).query(
            """
            SELECT count(*) FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = convert_from($1, 'UTF8')
            """, binds)
        return Int(rows.int64(0, 0))
    }
}

/// A body run on a thread of its own, its result read once it is done.
private final class Background<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, any Error>?>(nil)

    init(_ body: @escaping @Sendable () throws -> T) {
        Thread.detachNewThread {
            let outcome = Result { try body() }
            self.result.withLock { $0 = outcome }
        }
    }

    var isDone: Bool { result.withLock { $0 != nil } }

    /// The body's result, waiting for it up to a generous deadline.
    func value() throws -> T {
        guard eventually(seconds: 30, { isDone }), let outcome = result.withLock({ $0 }) else {
            throw BackgroundTimeout()
        }
        return try outcome.get()
    }
}

private struct BackgroundTimeout: Error {}

extension StoredEventRow {
    fileprivate var jsonText: String { String(decoding: json, as: UTF8.self) }
}
