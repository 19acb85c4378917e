import Foundation
import GronaMock
import Testing

@testable import GronaMockSQLite

/// The write-ahead log is copied back by `maintainAfterCommit` when the writer is idle, before SQLite's own
/// checkpoint inside a COMMIT (at 1,000 pages) is needed; commits alone still keep it bounded at that limit.
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

    /// 1,000 pages of 4 KiB: the log past which SQLite checkpoints inside a COMMIT.
    private static let inCommitLimit = 1000 * 4096

    @Test("with upkeep between groups the log never reaches the limit at which a commit would checkpoint")
    func upkeepKeepsTheLogUnderTheCommitLimit() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        try Self.commitGroups(storage, maintaining: true)
        #expect(try storage.eventCount() == 8_000)
        // The log file is reused from its start after each copy, so its size is the longest the log has been.
        #expect(Self.walBytes(file) < Self.inCommitLimit, "write-ahead log of \(Self.walBytes(file)) bytes")
    }

    @Test("commits alone still checkpoint at SQLite's limit: the log grows past it, then starts over")
    func commitsAloneStayBounded() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        try Self.commitGroups(storage, maintaining: false)
        #expect(try storage.eventCount() == 8_000)
        let bytes = Self.walBytes(file)
        // Past the limit by at most a group (about 120 pages here), and never the whole 16 MB written.
        #expect(bytes >= Self.inCommitLimit && bytes < Self.inCommitLimit + 2 * 1024 * 1024, "\(bytes) bytes")
    }
}
