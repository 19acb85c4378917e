import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockStorageConformance
import Testing

@testable import GronaMockSQLite

/// The storage conformance suite on SQLite, in both of its shapes: a file (a writer and a pool of readers)
/// and `:memory:` (everything on one connection).
@Suite("SQLite storage conformance")
struct SQLiteConformanceTests {
    @Test("on a file", arguments: StorageConformance.checks)
    func onFile(_ check: StorageConformance) throws {
        let file = try TemporaryDatabase()
        try check.run(on: try SQLiteStorage(path: file.path))
    }

    @Test("in memory", arguments: StorageConformance.checks)
    func inMemory(_ check: StorageConformance) throws {
        try check.run(on: try SQLiteStorage(path: ":memory:"))
    }
}

/// What only the SQLite backend does: its file, its schema version, its errors.
@Suite("SQLite storage")
struct SQLiteStorageTests {
    @Test("a database from a newer grona-mock is refused with a clear error, and left alone")
    func newerSchema() throws {
        let file = try TemporaryDatabase()
        do {
            let connection = try SQLiteConnection(path: file.path)
            try connection.execute("PRAGMA user_version = 999")
        }
        let error = #expect(throws: StorageError.self) { try SQLiteStorage(path: file.path) }
        #expect(error?.kind == .schemaTooNew)
        #expect(error?.message.contains("schema version 999") == true)
        let connection = try SQLiteConnection(path: file.path)
        #expect(try connection.scalarText("PRAGMA user_version") == "999")
    }

    @Test("the per-campaign counts read one covering index in group order: no sort of the workspace's rows")
    func campaignCountsPlan() throws {
        let file = try TemporaryDatabase()
        _ = try SQLiteStorage(path: file.path)
        let connection = try SQLiteConnection(path: file.path)
        let plan = try connection.prepare("EXPLAIN QUERY PLAN " + SQLiteStorage.campaignTypeCountsSQL)
        try plan.bind([.text("acme")])
        var steps: [String] = []
        while try plan.step() { steps.append(plan.text(3) ?? "") }
        #expect(steps.contains { $0.contains("USING COVERING INDEX events_by_campaign_arm") }, "\(steps)")
        // A temporary b-tree for GROUP BY would sort every row of the workspace, in memory that grows with it.
        #expect(!steps.contains { $0.contains("GROUP BY") }, "\(steps)")
    }

    @Test("a file that is not a database is a clear error, not a crash")
    func notADatabase() throws {
        let file = try TemporaryDatabase()
        try Array(repeating: "not sqlite\n", count: 200).joined().write(
            toFile: file.path, atomically: true, encoding: .utf8)
        let error = #expect(throws: StorageError.self) { try SQLiteStorage(path: file.path) }
        #expect(error?.message.isEmpty == false)
    }

    @Test("a reopened file keeps events and revisions")
    func reopen() throws {
        let file = try TemporaryDatabase()
        do {
            let storage = try SQLiteStorage(path: file.path)
            let batch = EventBatch(
                workspaceKey: "acme",
                accepted: [
                    EventRecord(
                        workspaceKey: "acme", eventID: "a", type: "exposure", timestamp: 1, receivedAt: 2,
                        correctedTimestamp: 1, installID: "i", json: Array("{}".utf8))
                ], rejected: [])
            _ = try storage.commit([.batch(batch)])
        }
        let reopened = try SQLiteStorage(path: file.path)
        #expect(try reopened.eventCount() == 1)
        #expect((reopened.bytesUsed() ?? 0) > 0)
    }

    @Test("a read is not held up by a write transaction open elsewhere (WAL)")
    func readDuringWrite() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        let other = try SQLiteConnection(path: file.path)
        try other.execute("BEGIN IMMEDIATE; INSERT INTO storage_probe (id, writes) VALUES (1, 1);")
        // WAL: readers do not wait for a writer.
        #expect(try storage.lastSequence() == 0)
        try other.execute("COMMIT")
    }

    @Test("a commit refused by a lock held elsewhere stores nothing and says storage is unavailable")
    func lockedCommit() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        let other = try SQLiteConnection(path: file.path)
        other.setBusyTimeout(milliseconds: 0)
        try other.execute("BEGIN EXCLUSIVE")
        storage.database.withConnection { $0.setBusyTimeout(milliseconds: 0) }
        let batch = EventBatch(
            workspaceKey: "acme",
            accepted: [
                EventRecord(
                    workspaceKey: "acme", eventID: "a", type: "exposure", timestamp: 1, receivedAt: 2,
                    correctedTimestamp: 1, installID: "i", json: Array("{}".utf8))
            ], rejected: [])
        let error = #expect(throws: StorageError.self) { try storage.commit([.batch(batch)]) }
        #expect(error?.kind == .unavailable)
        try other.execute("ROLLBACK")
        // The failed commit left no transaction open: the next one goes through.
        #expect(try storage.commit([.batch(batch)]) == [.batch(EventBatchResult(accepted: 1, duplicateIndexes: []))])
    }
}

/// The packed rows bound without a copy: what SQLite stores must be what was packed, an empty text included.
@Suite("SQLite storage: packed rows")
struct SQLitePackedRowsTests {
    @Test("an empty text is stored as empty, an absent field as NULL, and the blob byte for byte")
    func emptyAndAbsent() throws {
        let storage = try SQLiteStorage(path: ":memory:")
        let json: [UInt8] = [0x7B, 0x00, 0xFF, 0x7D]
        let record = EventRecord(
            workspaceKey: "acme", eventID: "a", type: "exposure", timestamp: 1, receivedAt: 2, correctedTimestamp: 3,
            installID: "i", customerID: "", sessionID: nil, json: json)
        _ = try storage.commit([.batch(EventBatch(workspaceKey: "acme", accepted: [record], rejected: []))])
        let row = try storage.database.withConnection { connection throws(SQLiteError) in
            try connection.scalarText(
                "SELECT quote(customer_id) || ',' || quote(session_id) || ',' || hex(json) FROM events")
        }
        #expect(row == "'',NULL,7B00FF7D")
    }
}
