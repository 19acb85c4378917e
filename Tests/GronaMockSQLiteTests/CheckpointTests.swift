import Dispatch
import Foundation
import GronaMock
import GronaMockTestSupport
import Synchronization
import Testing

@testable import GronaMockSQLite

/// The write-ahead log is copied back by the checkpoint thread, asked for by `maintainAfterCommit` after each
/// commit, before the checkpoint inside a COMMIT (`WriteAheadLogLimits.commitPages`) is needed; commits alone still
/// keep it bounded at that limit, and no commit waits for the checkpoint thread. These tests set the commit's
/// limit to 1,000 pages, SQLite's own, so that a few megabytes of events cross it.
@Suite struct CheckpointTests {
    /// 40 commits of 200 events with 2 KB blobs: about 4,000 pages of log, four times the checkpoint limit.
    private static func commitGroups(_ storage: SQLiteStorage, maintaining: Bool) throws {
        let blob = Array("{\"pad\":\"\(String(repeating: "x", count: 2_000))\"}".utf8)
        for group in 0..<40 {
            let events = (0..<200).map { index in event("g\(group)-\(index)", json: blob) }
            _ = try storage.commit([.batch(EventBatch(workspaceKey: "acme", accepted: events, rejected: []))])
            guard maintaining else { continue }
            try storage.maintainAfterCommit()
            // An idle writer: the next batch arrives after the copy is done.
            #expect(eventually { storage.database.checkpointer?.isIdle == true })
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

    /// The limits these tests run with: a COMMIT checkpoints past 1,000 pages of 4 KiB.
    private static let limits = WriteAheadLogLimits(requestPages: 300, commitPages: 1000)
    private static let inCommitLimit = Int(limits.commitPages) * 4096

    @Test("with upkeep between groups the log never reaches the limit at which a commit would checkpoint")
    func upkeepKeepsTheLogUnderTheCommitLimit() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path, logLimits: Self.limits)
        try Self.commitGroups(storage, maintaining: true)
        #expect(try storage.eventCount() == 8_000)
        // The log file is reused from its start after each copy, so its size is the longest the log has been.
        #expect(Self.walBytes(file) < Self.inCommitLimit, "write-ahead log of \(Self.walBytes(file)) bytes")
    }

    @Test("commits alone still checkpoint at SQLite's limit: the log grows past it, then starts over")
    func commitsAloneStayBounded() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path, logLimits: Self.limits)
        try Self.commitGroups(storage, maintaining: false)
        #expect(try storage.eventCount() == 8_000)
        let bytes = Self.walBytes(file)
        // Past the limit by at most a group (about 120 pages here), and never the whole 16 MB written.
        #expect(bytes >= Self.inCommitLimit && bytes < Self.inCommitLimit + 2 * 1024 * 1024, "\(bytes) bytes")
    }

    @Test("commits go on while the checkpoint thread copies the log, and the log starts over after it")
    func commitsDoNotWaitForTheCheckpoint() throws {
        let file = try TemporaryDatabase()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holdFirst = Mutex(true)
        // The first checkpoint waits on the test before it copies anything.
        let storage = try SQLiteStorage(path: file.path, logLimits: Self.limits) {
            let first = holdFirst.withLock { hold in
                defer { hold = false }
                return hold
            }
            guard first else { return }
            entered.signal()
            release.wait()
        }
        let blob = Array("{\"pad\":\"\(String(repeating: "x", count: 2_000))\"}".utf8)
        var group = 0
        var stored = 0
        func commit(events: Int) throws {
            let batch = (0..<events).map { index in Self.event("g\(group)-\(index)", json: blob) }
            _ = try storage.commit([.batch(EventBatch(workspaceKey: "acme", accepted: batch, rejected: []))])
            try storage.maintainAfterCommit()
            group += 1
            stored += events
        }
        // About 120 pages a group of 100: the third passes 300 and asks for a checkpoint.
        while storage.database.checkpointer?.isIdle == true, group < 20 { try commit(events: 100) }
        #expect(entered.wait(timeout: .now() + 10) == .success, "no checkpoint was asked for after \(group) groups")
        // The checkpoint thread is held before its copy: the writer commits and answers anyway (small groups, so
        // that the log stays short of the 1,000 pages at which the commit would copy it itself). Were a commit to
        // wait for that thread, this loop would never end: the watchdog turns that into a failure.
        let watchdogFired = Mutex(false)
        let watchdog = DispatchWorkItem {
            watchdogFired.withLock { $0 = true }
            release.signal()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        for _ in 0..<5 { try commit(events: 5) }
        #expect(!watchdogFired.withLock { $0 }, "a commit waited for the checkpoint thread")
        watchdog.cancel()
        release.signal()
        #expect(eventually { storage.database.checkpointer?.isIdle == true })
        #expect((storage.database.checkpointer?.checkpoints ?? 0) >= 1)
        // The log was copied whole, so the next commit writes it from its start again: six more groups (another
        // 750 pages or so, which on top of the 400 already there would pass 1,000) leave the file, as long as the
        // longest the log has been, under 1,000 pages.
        for _ in 0..<6 { try commit(events: 100) }
        #expect(try storage.eventCount() == stored)
        #expect(Self.walBytes(file) < Self.inCommitLimit, "write-ahead log of \(Self.walBytes(file)) bytes")
    }
    #if os(Linux)
    @Test("the checkpoint thread runs at a nice value of 10: the writer and the event loops come first")
    func checkpointThreadYields() throws {
        let file = try TemporaryDatabase()
        let storage = try SQLiteStorage(path: file.path)
        // Every checkpoint thread of this process (tests run beside each other) lowers itself as it starts.
        func nices() throws -> [Int] {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { task in
                let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
                guard comm?.hasPrefix("grona-sqlite-ch") == true,
                    let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return nil }
                // After the name: state is field 3, nice field 19 (proc(5)).
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 16 ? Int(fields[16]) : nil
            }
        }
        withExtendedLifetime(storage) {
            #expect(eventually { ((try? nices()) ?? []).contains(10) })
        }
    }
    #endif
}
