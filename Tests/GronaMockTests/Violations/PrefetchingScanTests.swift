import GronaMock
import GronaMockSQLite
import Testing

@testable import GronaMock

/// The violations check's read-ahead (`PrefetchingScan`): what the caller sees is exactly what the storage's
/// own scan hands over, whatever the number of chunks; stopping early ends the reader; a read that fails is
/// the caller's error, never a hang.
@Suite("A scan read ahead on its own thread")
struct PrefetchingScanTests {
    /// More events than the reader keeps in flight (`depth` chunks of `chunkSize`), over installs and visits.
    static func storage(events count: Int) throws -> SQLiteStorage {
        let storage = try SQLiteStorage(path: ":memory:")
        let records = (0..<count).map { number in
            var record = EventRecord(
                workspaceKey: "shop", eventID: "e\(number)", type: "exposure", timestamp: Int64(number),
                receivedAt: Int64(number), correctedTimestamp: Int64(number), installID: "i\(number % 7)",
                json: Array("{\"eventID\":\"e\(number)\"}".utf8))
            record.visitID = number % 13 == 0 ? nil : "v\(number % 5)"
            return record
        }
        for start in stride(from: 0, to: count, by: 1_000) {
            let events = Array(records[start..<min(start + 1_000, count)])
            _ = try storage.commit([.batch(EventBatch(workspaceKey: "shop", accepted: events, rejected: []))])
        }
        return storage
    }

    static func direct(_ storage: SQLiteStorage, _ scan: EventScan) throws -> [Int64] {
        var sequences: [Int64] = []
        try storage.scanEvents(scan) { row in
            sequences.append(row.sequence)
            return true
        }
        return sequences
    }

    @Test("hands over every row in the storage's order, across many chunks", arguments: [0, 1, 511, 512, 5_000])
    func sameRows(_ count: Int) throws {
        let storage = try Self.storage(events: count)
        let scan = EventScan(workspace: "shop", throughSequence: try storage.lastSequence())
        var sequences: [Int64] = []
        try PrefetchingScan.run(storage, scan) { batch, index in
            sequences.append(batch.rows[index].sequence)
            return true
        }
        #expect(sequences.count == count)
        #expect(sequences == (try Self.direct(storage, scan)))
    }

    @Test("rows are handed over whole, also when large events fill chunks by their bytes")
    func largeRows() throws {
        let storage = try SQLiteStorage(path: ":memory:")
        // 40 events of 60 KiB: a chunk is handed on by its bytes (`maxChunkBytes`) long before its row count.
        let records = (0..<40).map { number in
            EventRecord(
                workspaceKey: "shop", eventID: "big\(number)", type: "exposure", timestamp: 1, receivedAt: 1,
                correctedTimestamp: 1, installID: "install-\(number % 3)",
                json: Array("{\"pad\":\"\(String(repeating: "x", count: 60 * 1024 + number))\"}".utf8))
        }
        _ = try storage.commit([.batch(EventBatch(workspaceKey: "shop", accepted: records, rejected: []))])
        let scan = EventScan(workspace: "shop", throughSequence: try storage.lastSequence())
        var expected: [StoredEventColumns] = []
        try storage.scanEvents(scan) { row in
            expected.append(row)
            return true
        }
        var seen: [StoredEventColumns] = []
        try PrefetchingScan.run(storage, scan) { batch, index in
            #expect(batch.bytes.count <= PrefetchingScan.maxChunkBytes + 64 * 1024)
            seen.append(batch[index])
            return true
        }
        #expect(seen.count == 40)
        #expect(seen == expected)
    }

    @Test("a caller that stops gets no row after it, and the reader ends", arguments: [1, 700, 2_049])
    func stops(_ after: Int) throws {
        let storage = try Self.storage(events: 5_000)
        let scan = EventScan(workspace: "shop", throughSequence: try storage.lastSequence())
        var seen = 0
        try PrefetchingScan.run(storage, scan) { _, _ in
            seen += 1
            return seen < after
        }
        #expect(seen == after)
        // The reader released the storage: a write after the scan goes through.
        let extra = EventRecord(
            workspaceKey: "shop", eventID: "after", type: "exposure", timestamp: 1, receivedAt: 1,
            correctedTimestamp: 1, installID: "i0", json: Array("{}".utf8))
        let outcome = try storage.commit([.batch(EventBatch(workspaceKey: "shop", accepted: [extra], rejected: []))])
        #expect(outcome == [.batch(EventBatchResult(accepted: 1, duplicateIndexes: []))])
    }

    @Test(
        "a read that fails mid-scan hands over every row read before it, then throws",
        arguments: [1, 15, 16, 700, 1_008, 2_000])
    func failureAfterRows(_ after: Int) throws {
        let storage = FailingScanStorage(try Self.storage(events: 3_000), failingAfter: after)
        let scan = EventScan(workspace: "shop", throughSequence: try storage.lastSequence())
        var sequences: [Int64] = []
        #expect(throws: StorageError.self) {
            try PrefetchingScan.run(storage, scan) { batch, index in
                sequences.append(batch.rows[index].sequence)
                return true
            }
        }
        #expect(sequences == Array(try Self.direct(storage.inner, scan).prefix(after)))
    }

    @Test("a read that fails is thrown to the caller")
    func failure() throws {
        let storage = try Self.storage(events: 100)
        storage.interruptReads()
        let scan = EventScan(workspace: "shop", throughSequence: 100)
        #expect(throws: StorageError.self) {
            try PrefetchingScan.run(storage, scan) { _, _ in true }
        }
    }
}

/// A SQLite storage whose scans fail after `failingAfter` rows, as a disk or a connection that goes mid-scan.
final class FailingScanStorage: GronaStorage {
    let inner: SQLiteStorage
    let failingAfter: Int

    init(_ inner: SQLiteStorage, failingAfter: Int) {
        self.inner = inner
        self.failingAfter = failingAfter
    }

    func scanEvents(_ scan: EventScan, _ body: (StoredEventColumns) -> Bool) throws(StorageError) {
        var handed = 0
        var stopped = false
        try inner.scanEvents(scan) { row in
            guard handed < failingAfter else { return false }
            handed += 1
            stopped = !body(row)
            return !stopped
        }
        if !stopped && handed == failingAfter { throw StorageError(.failed, "the disk went away mid-scan") }
    }

    func commit(_ changes: [StorageChange]) throws(StorageError) -> [StorageChangeOutcome] {
        try inner.commit(changes)
    }
    func maintainAfterCommit() throws(StorageError) { try inner.maintainAfterCommit() }
    func eventCount() throws(StorageError) -> Int { try inner.eventCount() }
    func dropOldestEvents(_ count: Int, keepingRejected: Int) throws(StorageError) {
        try inner.dropOldestEvents(count, keepingRejected: keepingRejected)
    }
    func lastSequence() throws(StorageError) -> Int64 { try inner.lastSequence() }
    func events(matching filter: EventFilter, page: EventPage) throws(StorageError) -> StoredPage<StoredEventRow> {
        try inner.events(matching: filter, page: page)
    }
    func count(matching filter: EventFilter) throws(StorageError) -> Int { try inner.count(matching: filter) }
    func count(matching filter: EventFilter, continuing tally: EventTally?) throws(StorageError) -> EventTally {
        try inner.count(matching: filter, continuing: tally)
    }
    func rejectedEvents(workspace: String?, page: EventPage) throws(StorageError) -> StoredPage<StoredRejectedEvent> {
        try inner.rejectedEvents(workspace: workspace, page: page)
    }
    func campaignCounts(workspace: String) throws(StorageError) -> CampaignCounts {
        try inner.campaignCounts(workspace: workspace)
    }
    func bytesUsed() -> Int64? { inner.bytesUsed() }
    func configRevision(
        for workspaceKey: String, contentHash: [UInt8], make: (Int64) throws -> StoredConfigRevision
    ) throws -> StoredConfigRevision {
        try inner.configRevision(for: workspaceKey, contentHash: contentHash, make: make)
    }
    func latestConfigRevision(for workspaceKey: String) throws(StorageError) -> StoredConfigRevision? {
        try inner.latestConfigRevision(for: workspaceKey)
    }
    func interruptReads() { inner.interruptReads() }
    var location: String { inner.location }
}
