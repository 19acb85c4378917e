import Foundation
import GronaMock
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@testable import GronaMockPostgres

/// The events' bulk path (issue 32): a group is copied into `events`, and one that meets a stored duplicate
/// is written again skipping it. What a user checks: every event stored once with its bytes, duplicates named
/// exactly (inside a group, across groups, across instances), purchases keeping their treatments.
@Suite("PostgreSQL events by COPY", .enabled(if: TestPostgres.isAvailable, TestPostgres.unavailableReason))
struct PostgresCopyTests {
    @Test("duplicates inside one group, in one batch and across its batches, are named and stored once")
    func duplicatesInsideGroup() throws {
        let storage = try PostgresStorage(url: try TestPostgres.freshURL())
        let outcomes = try storage.commit([batch(["a", "b", "a"]), batch(["c", "b", "d", "c"])])
        #expect(
            outcomes == [
                .batch(EventBatchResult(accepted: 2, duplicateIndexes: [2])),
                .batch(EventBatchResult(accepted: 2, duplicateIndexes: [1, 3])),
            ])
        #expect(try storage.eventCount() == 4)
    }

    @Test("a group meeting stored events names them, stores the rest, and keeps the other batches' outcomes")
    func duplicatesAcrossGroups() throws {
        let url = try TestPostgres.freshURL()
        let storage = try PostgresStorage(url: url)
        _ = try storage.commit([batch(["a", "b"])])
        let outcomes = try storage.commit([
            batch(["x", "a"]), .probe, batch(["y", "y", "b", "z"]), purchaseBatch(["p1"]),
        ])
        #expect(
            outcomes == [
                .batch(EventBatchResult(accepted: 1, duplicateIndexes: [1])), .probed,
                .batch(EventBatchResult(accepted: 2, duplicateIndexes: [1, 2])),
                .batch(EventBatchResult(accepted: 1, duplicateIndexes: [])),
            ])
        #expect(try storage.eventCount() == 6)
        // The rolled-back attempt left nothing behind: each purchase has its two treatments, once.
        #expect(try treatments(url) == ["p1": 2])
    }

    @Test("purchases copied in one group get their treatments, joined to their own events")
    func treatmentsByCopy() throws {
        let url = try TestPostgres.freshURL()
        let storage = try PostgresStorage(url: url)
        let outcomes = try storage.commit([purchaseBatch(["p1", "p2"]), batch(["e1"]), purchaseBatch(["p3"])])
        #expect(outcomes.count == 3)
        #expect(try treatments(url) == ["p1": 2, "p2": 2, "p3": 2])
        // The same purchases again: duplicates, and no treatment added.
        #expect(
            try storage.commit([purchaseBatch(["p2", "p4"])]) == [
                .batch(EventBatchResult(accepted: 1, duplicateIndexes: [0]))
            ])
        #expect(try treatments(url) == ["p1": 2, "p2": 2, "p3": 2, "p4": 2])
    }

    @Test("a group larger than libpq's buffers and the COPY's pieces is stored whole, in order")
    func largeGroup() throws {
        // One transaction, so one COPY (a group in halves takes its sequence numbers in two runs side by side).
        let storage = try PostgresStorage(url: try TestPostgres.freshURL(), readers: 4, sideBySideRows: .max)
        let padding = String(repeating: "x", count: 1_500)
        let json = { (id: String) in Array("{\"eventID\":\"\(id)\",\"pad\":\"\(padding)\"}".utf8) }
        let batches: [StorageChange] = (0..<8).map { part in
            let records = (0..<500).map { index in
                var record = event("big-\(part)-\(index)")
                record.json = json("big-\(part)-\(index)")
                return record
            }
            return .batch(EventBatch(workspaceKey: "acme", accepted: records, rejected: []))
        }
        let outcomes = try storage.commit(batches)
        let whole = StorageChangeOutcome.batch(EventBatchResult(accepted: 500, duplicateIndexes: []))
        #expect(outcomes == [StorageChangeOutcome](repeating: whole, count: 8))
        #expect(try storage.eventCount() == 4_000)
        var page = EventPage()
        page.limit = 1
        #expect(try storage.events(matching: EventFilter(), page: page).rows.map(\.json) == [json("big-0-0")])
        page.newestFirst = true
        #expect(try storage.events(matching: EventFilter(), page: page).rows.map(\.json) == [json("big-7-499")])
    }

    @Test("tab, newline, carriage return, backslash, quotes, NUL and unicode are stored and read byte for byte")
    func oddCharacters() throws {
        let storage = try PostgresStorage(url: try TestPostgres.freshURL())
        let odd = [
            "tab\there", "new\nline", "cr\rlf\r\n", "back\\slash\\.", "\\N", "quote\"'", "nul\u{0}byte",
            "é café ☕ 漢字 👩‍👩‍👧 e\u{301}", "\u{7F}\u{1}\u{1F}", "",
        ]
        var records: [EventRecord] = []
        for (index, text) in odd.enumerated() {
            var record = event("id-\(index)-\(text)")
            record.customerID = text
            record.visitID = text.isEmpty ? nil : text
            record.json = Array("{\"eventID\":\"id-\(index)\",\"v\":\"".utf8) + Array(text.utf8) + Array("\"}".utf8)
            records.append(record)
        }
        let outcome = try storage.commit([.batch(EventBatch(workspaceKey: "acme", accepted: records, rejected: []))])
        #expect(outcome == [.batch(EventBatchResult(accepted: odd.count, duplicateIndexes: []))])
        let stored = try storage.events(matching: EventFilter(), page: EventPage()).rows
        #expect(stored.map(\.json) == records.map(\.json))
        for (index, text) in odd.enumerated() {
            var filter = EventFilter()
            filter.customerID = text
            #expect(try storage.count(matching: filter) == 1, "customer \(index) \(text.debugDescription)")
        }
        // Each one's id is a duplicate byte for byte, and only of itself.
        let again = try storage.commit([batch(records.map(\.eventID) + ["id-0-tab here"])])
        #expect(again == [.batch(EventBatchResult(accepted: 1, duplicateIndexes: Array(0..<odd.count)))])
    }

    @Test("two instances copying the same events at once: each stored once, each a duplicate once")
    func duplicatesAcrossInstances() throws {
        let url = try TestPostgres.freshURL()
        let instances = [try PostgresStorage(url: url), try PostgresStorage(url: url)]
        let ids = (0..<400).map { "shared-\($0)" }
        let outcomes = Mutex<[EventBatchResult]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                // Groups of different sizes, so that the instances' groups overlap in part.
                let size = index == 0 ? 50 : 70
                for chunk in stride(from: 0, to: ids.count, by: size) {
                    let group = Array(ids[chunk..<min(chunk + size, ids.count)])
                    for case .batch(let result) in try instances[index].commit([
                        batch(group), batch(["own-\(index)-\(chunk)"]),
                    ]) {
                        outcomes.withLock { $0.append(result) }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let results = outcomes.withLock { $0 }
        let ownGroups = 400 / 50 + (400 + 69) / 70
        #expect(results.reduce(0) { $0 + $1.accepted } == 400 + ownGroups)
        #expect(results.reduce(0) { $0 + $1.duplicates } == 400)
        #expect(try instances[0].eventCount() == 400 + ownGroups)
    }

    /// Each purchase's event id and the number of treatments stored for it.
    private func treatments(_ url: String) throws -> [String: Int] {
        let rows = try TestPostgres.connect(url).query(
            """
            SELECT e.event_id, count(*) FROM purchase_treatments t JOIN events e ON e.seq = t.event_seq
            GROUP BY e.event_id
            """)
        var counts: [String: Int] = [:]
        for row in 0..<rows.rowCount { counts[rows.text(row, 0) ?? ""] = Int(rows.int64(row, 1)) }
        return counts
    }

    /// Purchases of workspace acme, each claiming two treatments.
    private func purchaseBatch(_ ids: [String]) -> StorageChange {
        let claimed = ["home_top", "pdp"].map { placement in
            ClaimedTreatment(
                campaignID: "spring", variantID: "v1", placement: placement, type: "percent_off", valueMilli: 10)
        }
        let records = ids.map { id in
            var record = event(id)
            record.type = "purchase"
            record.treatments = claimed
            record.totalMinor = 4_200
            return record
        }
        return .batch(EventBatch(workspaceKey: "acme", accepted: records, rejected: []))
    }
}
