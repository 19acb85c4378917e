import GronaMock
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

    @Test("the per-campaign counts read their own table's rows, one per group, not the events")
    func campaignCountsPlan() throws {
        let file = try TemporaryDatabase()
        _ = try SQLiteStorage(path: file.path)
        let connection = try SQLiteConnection(path: file.path)
        let plan = try connection.prepare("EXPLAIN QUERY PLAN " + SQLiteStorage.campaignTypeCountsSQL)
        try plan.bind([.text("acme")])
        var steps: [String] = []
        while try plan.step() { steps.append(plan.text(3) ?? "") }
        #expect(steps.contains { $0.contains("SEARCH campaign_event_counts USING PRIMARY KEY") }, "\(steps)")
        // The events not yet folded are a range by sequence, never the workspace's every row.
        #expect(steps.contains { $0.hasPrefix("SEARCH events") && $0.contains("rowid>?") }, "\(steps)")
        #expect(!steps.contains { $0.hasPrefix("SCAN events") }, "\(steps)")
    }

    @Test(
        "campaign counts are exact with the events folded after every commit, or every second one",
        arguments: [1, 2] as [Int64])
    func foldedCounts(_ fold: Int64) throws {
        for check in StorageConformance.checks where check.description.contains("campaign counts") {
            let file = try TemporaryDatabase()
            try check.run(on: try SQLiteStorage(path: file.path, campaignCountsFold: fold))
        }
    }

    /// One stored exposure of `spring` for each id, in one batch.
    static func exposures(_ ids: [String]) -> StorageChange {
        .batch(
            EventBatch(
                workspaceKey: "acme",
                accepted: ids.map {
                    EventRecord(
                        workspaceKey: "acme", eventID: $0, type: "exposure", timestamp: 1, receivedAt: 2,
                        correctedTimestamp: 1, installID: "i", campaignID: "spring", variantID: "v1",
                        arm: "treatment", json: Array("{}".utf8))
                }, rejected: []))
    }

    static func exposureCount(_ storage: SQLiteStorage) throws -> Int64 {
        try storage.campaignCounts(workspace: "acme").types.reduce(0) { $0 + $1.count }
    }

    @Test("a commit that fails after counting its events leaves them out of the counts once folded")
    func failedCommitIsNotCounted() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path, campaignCountsFold: 2)
        // A trigger refuses one event id, after the events before it in the batch were stored and counted.
        try SQLiteConnection(path: file.path).execute(
            """
            CREATE TRIGGER refuse_boom AFTER INSERT ON events WHEN new.event_id = 'boom'
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;
            """)
        #expect(throws: StorageError.self) { try storage.commit([Self.exposures(["a", "boom"])]) }
        _ = try storage.commit([Self.exposures(["b"])])
        try storage.maintainAfterCommit()
        // The fold after the failure counted from the table: b alone (a, counted in memory, was rolled back).
        let connection = try SQLiteConnection(path: file.path)
        #expect(try connection.scalarText("SELECT sum(count) FROM campaign_event_counts") == "1")
        _ = try storage.commit([Self.exposures(["c"])])
        try storage.maintainAfterCommit()
        _ = try storage.commit([Self.exposures(["d"])])
        try storage.maintainAfterCommit()
        // c and d were folded from memory, two at a time.
        #expect(try connection.scalarText("SELECT sum(count) FROM campaign_event_counts") == "3")
        #expect(try connection.scalarText("SELECT seq FROM campaign_counts_folded") == "3")
        #expect(try Self.exposureCount(storage) == 3)
    }

    @Test("events stored but not folded before a restart are counted once after it")
    func unfoldedAcrossRestart() throws {
        let file = try TemporaryDatabase()
        do {
            let storage = try SQLiteStorage(path: file.path, campaignCountsFold: 1_000)
            _ = try storage.commit([Self.exposures(["a", "b", "c"])])
            try storage.maintainAfterCommit()
            #expect(try Self.exposureCount(storage) == 3)
        }
        let storage = try SQLiteStorage(path: file.path, campaignCountsFold: 1)
        #expect(try Self.exposureCount(storage) == 3)
        _ = try storage.commit([Self.exposures(["d"])])
        try storage.maintainAfterCommit()
        #expect(try Self.exposureCount(storage) == 4)
        let connection = try SQLiteConnection(path: file.path)
        #expect(try connection.scalarText("SELECT sum(count) FROM campaign_event_counts") == "4")
    }

    @Test("events another process stored past the mark are counted when this one folds")
    func anotherWriter() throws {
        let file = try TemporaryDatabase()
        let first = try SQLiteStorage(path: file.path, campaignCountsFold: 1)
        let second = try SQLiteStorage(path: file.path, campaignCountsFold: 1_000)
        _ = try first.commit([Self.exposures(["a"])])
        try first.maintainAfterCommit()
        _ = try second.commit([Self.exposures(["b", "c"])])
        _ = try first.commit([Self.exposures(["d"])])
        // The first writer's tally holds d alone; b and c are past the mark too, and must not be skipped.
        try first.maintainAfterCommit()
        let connection = try SQLiteConnection(path: file.path)
        #expect(try connection.scalarText("SELECT sum(count) FROM campaign_event_counts") == "4")
        #expect(try Self.exposureCount(first) == 4)
        #expect(try Self.exposureCount(second) == 4)
    }

    @Test("a schema 5 database with events is migrated: its counts are kept, and new events are counted in")
    func countsMigration() throws {
        let file = try TemporaryDatabase()
        do {
            let connection = try SQLiteConnection(path: file.path)
            for migration in Schema.migrations.prefix(5) { try connection.execute(migration) }
            try connection.execute(
                """
                PRAGMA user_version = 5;
                INSERT INTO events (workspace_key, event_id, type, timestamp, received_at, corrected_timestamp,
                    install_id, campaign_id, variant_id, arm, demo, json) VALUES
                    ('acme', 'a', 'exposure', 1, 1, 1, 'i', 'spring', 'v1', 'treatment', 0, x''),
                    ('acme', 'b', 'exposure', 1, 1, 1, 'i', 'spring', 'v1', 'treatment', 0, x''),
                    ('acme', 'c', 'exposure', 1, 1, 1, 'i', 'spring', NULL, NULL, 1, x''),
                    ('acme', 'd', 'exposure', 1, 1, 1, 'i', 'spring', '', '', 1, x''),
                    ('acme', 'e', 'purchase', 1, 1, 1, 'i', NULL, NULL, NULL, 0, x'');
                """)
        }
        let storage = try SQLiteStorage(path: file.path)
        func counts() throws -> [String] {
            try storage.campaignCounts(workspace: "acme").types.map {
                "\($0.campaignID)/\($0.variantID)/\($0.arm)/\($0.demo)/\($0.type)=\($0.count)"
            }
        }
        // A missing variant and an empty one were both read as "": they are one group now.
        #expect(try counts() == ["spring///true/exposure=2", "spring/v1/treatment/false/exposure=2"])
        let batch = EventBatch(
            workspaceKey: "acme",
            accepted: [
                EventRecord(
                    workspaceKey: "acme", eventID: "f", type: "exposure", timestamp: 1, receivedAt: 2,
                    correctedTimestamp: 1, installID: "i", campaignID: "spring", variantID: "v1", arm: "treatment",
                    json: Array("{}".utf8))
            ], rejected: [])
        _ = try storage.commit([.batch(batch)])
        #expect(try counts() == ["spring///true/exposure=2", "spring/v1/treatment/false/exposure=3"])
        let connection = try SQLiteConnection(path: file.path)
        #expect(try connection.scalarText("PRAGMA user_version") == "\(Schema.migrations.count)")
        #expect(
            try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE name = 'events_by_campaign_arm'")
                == "0")
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
