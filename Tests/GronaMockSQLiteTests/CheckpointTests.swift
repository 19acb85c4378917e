import Foundation
import GronaMock
import Testing

@testable import GronaMockSQLite

/// The write-ahead log is copied back by `maintainAfterCommit`, between groups, and never inside a commit: the
/// log stays short while the database grows, and commits alone leave it to grow.
@Suite struct CheckpointTests {
    /// 40 commits of 200 events with 2 KB blobs: about 4,000 pages of log, four times the checkpoint limit.
    private static func commitGroups(_ storage: SQLiteStorage, maintaining: Bool) throws {
        let blob = Array("{\"pad\":\"\(String(repeating: "x", count: 2_000))\"}".utf8)
        for group in 0..<40 {
            let events = (0..<200).map { index in event("g\(group)-\(index)", json: blob) }
            _ = try storage.commit([.batch(EventBatch(workspaceKey: "acme", accepted: events, rejected: []))])
            if maintaining { try storage.maintainAfterCommit() }
        }
    }

    private static func event(_ id: String, json: [UInt8]) -> EventRecord {
        EventRecord(
            workspaceKey: "acme", eventID: id, type: "exposure", timestamp: 1, receivedAt: 2, correctedTimestamp: 1,
            installID: "i", json: json)
    }

    private static func walBytes(_ file: TemporaryDatabase) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path + "-wal"))?[.size] as? Int) ?? 0
    }

    @Test("with upkeep after each group, the log starts over and stays near the limit while the database grows")
    func upkeepKeepsTheLogShort() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        try Self.commitGroups(storage, maintaining: true)
        #expect(try storage.eventCount() == 8_000)
        // The limit is 1,000 pages of 4 KiB; one group past it is the most the log holds before a copy.
        #expect(Self.walBytes(file) < 6 * 1024 * 1024, "write-ahead log of \(Self.walBytes(file)) bytes")
    }

    @Test("commits alone never checkpoint: the copy is the writer's upkeep, not part of a commit")
    func commitsAloneDoNotCheckpoint() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        try Self.commitGroups(storage, maintaining: false)
        #expect(Self.walBytes(file) > 12 * 1024 * 1024, "write-ahead log of \(Self.walBytes(file)) bytes")
        try storage.maintainAfterCommit()
        // Copied back: the next commit starts the log over from its beginning.
        let last = EventBatch(workspaceKey: "acme", accepted: [Self.event("after", json: [])], rejected: [])
        _ = try storage.commit([.batch(last)])
        #expect(try storage.eventCount() == 8_001)
    }
}
