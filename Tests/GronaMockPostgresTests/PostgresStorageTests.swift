import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockPlatform
import GronaMockStorageConformance
import GronaMockTestSupport
import Testing

@testable import GronaMockPostgres

/// The storage conformance suite on PostgreSQL, each check in a schema of its own.
@Suite("PostgreSQL storage conformance", .enabled(if: TestPostgres.isAvailable, TestPostgres.unavailableReason))
struct PostgresConformanceTests {
    @Test("on a throwaway cluster", arguments: StorageConformance.checks)
    func conformance(_ check: StorageConformance) throws {
        try check.run(on: try PostgresStorage(url: try TestPostgres.freshURL()))
    }

    /// Every group of two batches or more written in two halves side by side (`GroupHalves`), however small.
    @Test("with every group of two batches written side by side", arguments: StorageConformance.checks)
    func conformanceSideBySide(_ check: StorageConformance) throws {
        try check.run(on: try PostgresStorage(url: try TestPostgres.freshURL(), readers: 4, sideBySideRows: 2))
    }
}

/// What only the PostgreSQL backend does: its schema under an advisory lock, several instances on one
/// database, its URL and its errors.
@Suite("PostgreSQL storage", .enabled(if: TestPostgres.isAvailable, TestPostgres.unavailableReason))
struct PostgresStorageTests {
    @Test("a database from a newer grona-mock is refused with a clear error, and left alone")
    func newerSchema() throws {
        let url = try TestPostgres.freshURL()
        _ = try PostgresStorage(url: url)
        let connection = try TestPostgres.connect(url)
        try connection.execute("UPDATE schema_version SET version = 999")
        let error = #expect(throws: StorageError.self) { try PostgresStorage(url: url) }
        #expect(error?.kind == .schemaTooNew)
        #expect(error?.message.contains("schema version 999") == true)
        #expect(try connection.query("SELECT version FROM schema_version").int64(0, 0) == 999)
    }

    @Test("instances starting together on an empty database all succeed, and it has one schema")
    func concurrentMigration() throws {
        let url = try TestPostgres.freshURL()
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                _ = try PostgresStorage(url: url, readers: 1)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let connection = try TestPostgres.connect(url)
        let versions = try connection.query("SELECT version FROM schema_version")
        #expect(versions.rowCount == 1)
        #expect(versions.int64(0, 0) == Int64(Schema.migrations.count))
        let storage = try PostgresStorage(url: url)
        #expect(try storage.commit([batch(["a"])]) == [.batch(EventBatchResult(accepted: 1, duplicateIndexes: []))])
    }

    @Test("two instances on one database: an event stored by one is a duplicate for the other")
    func duplicatesAcrossInstances() throws {
        let url = try TestPostgres.freshURL()
        let first = try PostgresStorage(url: url)
        let second = try PostgresStorage(url: url)
        _ = try first.commit([batch(["a"])])
        #expect(
            try second.commit([batch(["b", "a"])]) == [.batch(EventBatchResult(accepted: 1, duplicateIndexes: [1]))])

        // The same 40 events sent to both at once: each stored once, each a duplicate once.
        let ids = (0..<40).map { "same-\($0)" }
        let outcomes = Mutex<[EventBatchResult]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                let storage = index == 0 ? first : second
                for chunk in stride(from: 0, to: ids.count, by: 5) {
                    guard case .batch(let result) = try storage.commit([batch(Array(ids[chunk..<chunk + 5]))]).first
                    else { continue }
                    outcomes.withLock { $0.append(result) }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let results = outcomes.withLock { $0 }
        #expect(results.reduce(0) { $0 + $1.accepted } == 40)
        #expect(results.reduce(0) { $0 + $1.duplicates } == 40)
        #expect(try first.eventCount() == 42)
        #expect(try second.lastSequence() == first.lastSequence())
    }

    @Test("text JSON allows and PostgreSQL's text refuses (NUL) is stored and matched byte for byte")
    func nulCharacter() throws {
        let storage = try PostgresStorage(url: try TestPostgres.freshURL())
        var record = event("a\u{0}b")
        record.customerID = "c\u{0}"
        let outcome = try storage.commit([
            .batch(
                EventBatch(
                    workspaceKey: "acme", accepted: [record],
                    rejected: [
                        RejectedEventRecord(
                            workspaceKey: "acme", index: 1, eventID: "x\u{0}", field: "type",
                            reason: "\"\u{0}\" is not a type", receivedAt: 1, installID: "i", json: [0x7B, 0x00, 0x7D])
                    ]))
        ])
        #expect(outcome == [.batch(EventBatchResult(accepted: 1, duplicateIndexes: []))])
        var filter = EventFilter()
        filter.customerID = "c\u{0}"
        #expect(try storage.count(matching: filter) == 1)
        let rejected = try storage.rejectedEvents(workspace: "acme", page: EventPage()).rows.map(\.record.eventID)
        #expect(rejected == ["x\u{0}"])
        #expect(
            try storage.commit([batch(["a\u{0}b"])]) == [.batch(EventBatchResult(accepted: 0, duplicateIndexes: [0]))])
    }

    @Test("a connection that listens receives another connection's notifications, with their payload")
    func notifications() throws {
        let url = try TestPostgres.freshURL()
        let listener = try TestPostgres.connect(url)
        let sender = try TestPostgres.connect(url)
        try listener.execute("LISTEN grona_test")
        #expect(listener.socket >= 0)
        var payload = PostgresBinds()
        payload.append(Int64(7))
        try sender.query("SELECT pg_notify('grona_test', 'kill ' || $1::bigint)", payload)
        var received: [PostgresNotification] = []
        #expect(
            try eventually {
                try listener.consumeInput()
                received += listener.notifications()
                return !received.isEmpty
            })
        #expect(received.map(\.channel) == ["grona_test"])
        #expect(received.map(\.payload) == ["kill 7"])
        #expect(received.map(\.serverProcessID) == [sender.serverProcessID])
    }

    @Test("a read running at shutdown is cancelled, and later reads are refused")
    func interruptReads() throws {
        let storage = try PostgresStorage(url: try TestPostgres.freshURL(), readers: 1)
        let finished = Mutex<StorageError?>(nil)
        let started = Mutex(false)
        let thread = Thread {
            do throws(StorageError) {
                _ = try storage.run { () throws(PostgresError) in
                    try storage.pool.withReader { connection throws(PostgresError) in
                        started.withLock { $0 = true }
                        return try connection.query("SELECT pg_sleep(60)")
                    }
                }
            } catch {
                finished.withLock { $0 = error }
            }
        }
        thread.start()
        #expect(eventually { started.withLock { $0 } })
        // The cancel may reach the server before the query: repeat it until the read ends.
        #expect(
            eventually(seconds: 30) {
                storage.interruptReads()
                return finished.withLock { $0 } != nil
            })
        #expect(finished.withLock { $0?.kind } == .unavailable)
        #expect((try? storage.lastSequence()) == nil)
    }
}

/// An event of workspace acme.
func event(_ id: String) -> EventRecord {
    EventRecord(
        workspaceKey: "acme", eventID: id, type: "exposure", timestamp: 1_000, receivedAt: 1_005,
        correctedTimestamp: 1_001, installID: "install-1", json: Array("{\"eventID\":\"\(id)\"}".utf8))
}

func batch(_ ids: [String]) -> StorageChange {
    .batch(EventBatch(workspaceKey: "acme", accepted: ids.map(event), rejected: []))
}
