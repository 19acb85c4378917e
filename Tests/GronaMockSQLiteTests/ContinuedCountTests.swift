import GronaMock
import Testing

@testable import GronaMockSQLite

/// The long-polls' running counts on SQLite (`count(matching:continuing:)`): a continued count reads only the
/// events stored since, a deletion anywhere, by this process or another, makes the next count start over, and
/// dropping the oldest events recounts only the block of sequences they cut into.
/// The storage conformance suite checks that continued and fresh counts agree; these check how.
@Suite("SQLite continued counts")
struct ContinuedCountTests {
    private static let served: EventFilter = {
        var filter = EventFilter()
        filter.workspace = "acme"
        filter.type = "served"
        return filter
    }()

    private static func served(_ ids: [String]) -> StorageChange {
        .batch(
            EventBatch(
                workspaceKey: "acme",
                accepted: ids.map {
                    EventRecord(
                        workspaceKey: "acme", eventID: $0, type: "served", timestamp: 1, receivedAt: 2,
                        correctedTimestamp: 1, installID: "i", json: Array("{}".utf8))
                }, rejected: []))
    }

    @Test("a continued count reads only the events stored since: a row removed behind its back is not seen")
    func readsOnlyNewEvents() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        _ = try storage.commit([Self.served(["a", "b", "c"])])
        let first = try storage.count(matching: Self.served, continuing: nil)
        #expect(first.count == 3)
        // Removed with no deletion generation: only a count that read the old rows again would notice. Neither
        // the oldest (a count takes that for the oldest events dropped, `dropsRecountOneBlock`) nor the newest
        // (its sequence would be used again).
        try SQLiteConnection(path: file.path).execute("DELETE FROM events WHERE event_id = 'b'")
        _ = try storage.commit([Self.served(["d"])])
        let continued = try storage.count(matching: Self.served, continuing: first)
        #expect(continued.count == 4)
        #expect(continued.through > first.through)
        #expect(try storage.count(matching: Self.served) == 3)
    }

    @Test("a deletion by another process on the same file makes the next count start over")
    func deletionElsewhere() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        let other = try SQLiteStorage(path: file.path)
        _ = try storage.commit([Self.served(["a", "b", "c"])])
        let first = try storage.count(matching: Self.served, continuing: nil)
        _ = try other.commit([.deleteEvents(workspaceKey: "acme")])
        _ = try other.commit([Self.served(["d"])])
        let continued = try storage.count(matching: Self.served, continuing: first)
        #expect(continued.count == 1)
        #expect(continued.deletions != first.deletions)
    }

    @Test("the oldest events dropped past --max-events are taken off a continued count")
    func droppedEvents() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        _ = try storage.commit([Self.served(["a", "b", "c"])])
        let first = try storage.count(matching: Self.served, continuing: nil)
        try storage.dropOldestEvents(2, keepingRejected: 0)
        #expect(try storage.count(matching: Self.served, continuing: first).count == 1)
    }

    @Test("dropping the oldest events recounts only the block they cut into; blocks they did not reach are kept")
    func dropsRecountOneBlock() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path, countBlockSize: 4)
        _ = try storage.commit([Self.served((1...10).map { "e\($0)" })])
        let first = try storage.count(matching: Self.served, continuing: nil)
        #expect(first.count == 10)
        #expect(first.blocks == [0: 3, 1: 4, 2: 3])
        // Removed behind the storage's back in block 2 (sequence 9): a count that read that block again would see it.
        try SQLiteConnection(path: file.path).execute("DELETE FROM events WHERE seq = 9")
        // The oldest five go (sequences 1 to 5): block 0 empties, block 1 is cut.
        try storage.dropOldestEvents(5, keepingRejected: 0)
        let continued = try storage.count(matching: Self.served, continuing: first)
        #expect(continued.blocks == [1: 2, 2: 3])
        #expect(continued.count == 5)
        #expect(continued.oldest == 6)
        #expect(try storage.count(matching: Self.served) == 4)
    }

    @Test("a listing filtered by type walks the workspace in sequence order: no sort, no scan of other workspaces")
    func typeListingPlan() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        _ = try storage.commit([Self.served(["a"])])
        let connection = try SQLiteConnection(path: file.path)
        let plan = try connection.prepare(
            "EXPLAIN QUERY PLAN SELECT seq FROM events WHERE workspace_key = ? AND type = ? ORDER BY seq LIMIT 51")
        try plan.bind([.text("acme"), .text("served")])
        var steps: [String] = []
        while try plan.step() { steps.append(plan.text(3) ?? "") }
        #expect(steps.contains { $0.contains("USING INDEX events_by_workspace") }, "\(steps)")
        #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(steps)")
    }

    @Test("a schema 6 database loses events_by_type and starts counting deletions, its events kept")
    func migrationFromSix() throws {
        let file = try TemporaryDatabase()
        do {
            let connection = try SQLiteConnection(path: file.path)
            for migration in Schema.migrations.prefix(6) { try connection.execute(migration) }
            try connection.execute(
                """
                PRAGMA user_version = 6;
                INSERT INTO events (workspace_key, event_id, type, timestamp, received_at, corrected_timestamp,
                    install_id, demo, json) VALUES ('acme', 'a', 'served', 1, 1, 1, 'i', 0, x'');
                """)
        }
        let storage = try SQLiteStorage(path: file.path)
        let tally = try storage.count(matching: Self.served, continuing: nil)
        #expect(tally.count == 1 && tally.through == 1 && tally.deletions == 0)
        let connection = try SQLiteConnection(path: file.path)
        #expect(try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE name = 'events_by_type'") == "0")
        #expect(try connection.scalarText("PRAGMA user_version") == "\(Schema.migrations.count)")
    }
}
