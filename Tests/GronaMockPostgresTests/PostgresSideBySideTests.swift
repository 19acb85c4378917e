import Foundation
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@testable import GronaMock
@testable import GronaMockPostgres

/// A large group written as two transactions side by side (`GroupHalves`, issue 32): what a user checks is
/// that nothing changes but the speed. Every batch stored whole or not at all, duplicates named exactly as in one
/// transaction, the outcomes in the batches' order, and a half that fails answered as failed while the other's
/// batches, stored, are acknowledged.
@Suite("PostgreSQL groups side by side", .enabled(if: TestPostgres.isAvailable, TestPostgres.unavailableReason))
struct PostgresSideBySideTests {
    static func ids(_ prefix: String, _ count: Int) -> [String] { (0..<count).map { "\(prefix)-\($0)" } }

    @Test("a large group goes in two halves: every event stored once, outcomes in order, readers see them all")
    func halvesStored() throws {
        let storage = try PostgresStorage(url: try TestPostgres.freshURL(), readers: 2, sideBySideRows: 100)
        let changes = (0..<6).map { batch(Self.ids("b\($0)", 40)) }
        let outcomes = try storage.commit(changes)
        #expect(storage.groupsSideBySide.load(ordering: .relaxed) == 1)
        #expect(outcomes == Array(repeating: .batch(EventBatchResult(accepted: 40, duplicateIndexes: [])), count: 6))
        #expect(try storage.eventCount() == 240)
        var page = EventPage()
        page.limit = 500
        let stored = try storage.events(matching: EventFilter(), page: page).rows
        #expect(stored.count == 240)
        // The halves take their sequence numbers side by side; each batch's events keep their order.
        let order = stored.map { String(decoding: $0.json, as: UTF8.self) }
        for part in 0..<6 {
            let mine = order.filter { $0.contains("\"b\(part)-") }
            #expect(mine == Self.ids("b\(part)", 40).map { "{\"eventID\":\"\($0)\"}" })
        }
        // A group under the bound is one transaction, as before.
        _ = try storage.commit([batch(["small-1"]), batch(["small-2"])])
        #expect(storage.groupsSideBySide.load(ordering: .relaxed) == 1)
    }

    @Test("duplicates in each half, of stored events and inside a batch, are named exactly and stored once")
    func duplicatesInHalves() throws {
        let storage = try PostgresStorage(url: try TestPostgres.freshURL(), readers: 2, sideBySideRows: 10)
        _ = try storage.commit([batch(["old-1", "old-2"])])
        let outcomes = try storage.commit([
            batch(Self.ids("a", 8) + ["old-1"]), batch(["a-x", "a-x"]),
            batch(Self.ids("b", 8) + ["old-2", "b-0"]), batch(["b-y"]),
        ])
        #expect(storage.groupsSideBySide.load(ordering: .relaxed) == 1)
        #expect(
            outcomes == [
                .batch(EventBatchResult(accepted: 8, duplicateIndexes: [8])),
                .batch(EventBatchResult(accepted: 1, duplicateIndexes: [1])),
                .batch(EventBatchResult(accepted: 8, duplicateIndexes: [8, 9])),
                .batch(EventBatchResult(accepted: 1, duplicateIndexes: [])),
            ])
        #expect(try storage.eventCount() == 2 + 18)
    }

    @Test("an id in both halves keeps the group whole, so its first copy is the one stored")
    func sharedIDKeepsGroupWhole() throws {
        let storage = try PostgresStorage(url: try TestPostgres.freshURL(), readers: 2, sideBySideRows: 10)
        var early = event("shared")
        early.json = Array("{\"eventID\":\"shared\",\"copy\":1}".utf8)
        var late = event("shared")
        late.json = Array("{\"eventID\":\"shared\",\"copy\":2}".utf8)
        let first = StorageChange.batch(
            EventBatch(workspaceKey: "acme", accepted: Self.ids("a", 10).map(event) + [early], rejected: []))
        let second = StorageChange.batch(
            EventBatch(workspaceKey: "acme", accepted: Self.ids("b", 10).map(event) + [late], rejected: []))
        let outcomes = try storage.commit([first, second])
        #expect(storage.groupsSideBySide.load(ordering: .relaxed) == 0)
        #expect(
            outcomes == [
                .batch(EventBatchResult(accepted: 11, duplicateIndexes: [])),
                .batch(EventBatchResult(accepted: 10, duplicateIndexes: [10])),
            ])
        let stored = try storage.events(matching: EventFilter(), page: EventPage()).rows.map(\.json)
        #expect(stored.filter { $0.starts(with: Array("{\"eventID\":\"shared\"".utf8)) } == [early.json])
    }

    /// A trigger that refuses the event ids starting `poison`: a transaction that holds one fails, every time.
    static func poison(_ url: String) throws {
        try TestPostgres.connect(url).execute(
            """
            CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF convert_from(NEW.event_id, 'UTF8') LIKE 'poison%' THEN RAISE EXCEPTION 'poisoned event'; END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER refuse_poison BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_poison();
            """)
    }

    @Test("a half that fails, again when written alone: its batches fail, the other half's are stored and answered")
    func oneHalfFails() throws {
        let url = try TestPostgres.freshURL()
        let storage = try PostgresStorage(url: url, readers: 2, sideBySideRows: 10)
        try Self.poison(url)
        // Halves of 12 and 11 events: the first batch, then the two others.
        let outcomes = try storage.commit([
            batch(Self.ids("a", 12)), batch(Self.ids("b", 7) + ["poison"]), batch(Self.ids("c", 3)),
        ])
        #expect(storage.groupsSideBySide.load(ordering: .relaxed) == 1)
        #expect(outcomes.count == 3)
        #expect(outcomes.first == .batch(EventBatchResult(accepted: 12, duplicateIndexes: [])))
        for outcome in outcomes.dropFirst() {
            guard case .failed(let error) = outcome else {
                Issue.record("expected a failed outcome, got \(outcome)")
                continue
            }
            #expect(error.message.contains("poisoned event"))
        }
        // Only the first half's events are stored: the other half's batches are wholly absent.
        #expect(try storage.eventCount() == 12)
        // A failed half keeps the next groups whole for a while.
        #expect(storage.sequenceWatch.withLock { $0.othersWriting(now: .now) })
        // Both halves failing is the group failing, as one transaction's would: nothing stored, an error. (The
        // rows refused above took sequence numbers, which reads as another writer: forgotten here.)
        storage.sequenceWatch.withLock { $0 = SequenceWatch() }
        #expect(throws: StorageError.self) {
            try storage.commit([batch(Self.ids("d", 10) + ["poison-1"]), batch(Self.ids("e", 10) + ["poison-2"])])
        }
        #expect(storage.groupsSideBySide.load(ordering: .relaxed) == 2)
        #expect(try storage.eventCount() == 12)
    }

    @Test("through the writer: the failed half's requests get the error, the other half's their counts")
    func writerAnswersEachHalf() throws {
        let url = try TestPostgres.freshURL()
        let storage = try PostgresStorage(url: url, readers: 2, sideBySideRows: 10)
        try Self.poison(url)
        // A batch whose insert waits for an advisory lock this test holds: the writer is busy with it while the
        // two batches below queue, so they form the next group together.
        let holder = try TestPostgres.connect(url)
        try holder.execute(
            """
            CREATE FUNCTION hold() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.event_id = convert_to('held', 'UTF8') THEN PERFORM pg_advisory_xact_lock(4242); END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER hold BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION hold();
            SELECT pg_advisory_lock(4242);
            """)
        let writer = EventWriter(storage: storage, maxEvents: nil, logger: Logger(format: .text) { _ in }) { _ in }
        defer { writer.stop() }
        let answers = Mutex<[String: Result<EventBatchResult, StorageError>]>([:])
        func submit(_ name: String, _ ids: [String]) {
            guard case .batch(let batch) = GronaMockPostgresTests.batch(ids) else { return }
            writer.submit(.write(batch) { result in answers.withLock { $0[name] = result } })
        }
        submit("held", ["held"])
        #expect(
            try eventually {
                try holder.query(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted"
                ).int64(0, 0) == 1
            })
        submit("first", Self.ids("a", 12))
        submit("second", Self.ids("b", 11) + ["poison-1"])
        try holder.execute("SELECT pg_advisory_unlock(4242)")
        #expect(eventually { answers.withLock { $0.count } == 3 })
        let results = answers.withLock { $0 }
        #expect((try? results["held"]?.get()) == EventBatchResult(accepted: 1, duplicateIndexes: []))
        #expect((try? results["first"]?.get()) == EventBatchResult(accepted: 12, duplicateIndexes: []))
        guard case .failure(let error) = results["second"] else {
            Issue.record("the poisoned half was answered \(String(describing: results["second"]))")
            return
        }
        #expect(error.message.contains("poisoned event"))
        #expect(storage.groupsSideBySide.load(ordering: .relaxed) == 1)
        #expect(try storage.eventCount() == 13)
        #expect(writer.status.withLock { $0.writable } == false)
    }

    @Test("two instances writing halves of the same ids at once: each stored once, each a duplicate once")
    func halvesAcrossInstances() throws {
        let url = try TestPostgres.freshURL()
        let instances = [
            try PostgresStorage(url: url, readers: 1, sideBySideRows: 20),
            try PostgresStorage(url: url, readers: 1, sideBySideRows: 20),
        ]
        let ids = Self.ids("shared", 400)
        let results = Mutex<[EventBatchResult]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                // The instances go through the ids in opposite orders, so their halves cross.
                let order = index == 0 ? ids : ids.reversed()
                for chunk in stride(from: 0, to: order.count, by: 40) {
                    let part = Array(order[chunk..<chunk + 40])
                    for case .batch(let result) in try instances[index].commit([
                        batch(Array(part[..<20])), batch(Array(part[20...])),
                    ]) {
                        results.withLock { $0.append(result) }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let all = results.withLock { $0 }
        #expect(all.reduce(0) { $0 + $1.accepted } == 400)
        #expect(all.reduce(0) { $0 + $1.duplicates } == 400)
        #expect(try instances[0].eventCount() == 400)
    }

    @Test("another instance writing: this one's groups are written whole from the group that sees it on")
    func wholeWhileOthersWrite() throws {
        let url = try TestPostgres.freshURL()
        let one = try PostgresStorage(url: url, readers: 1, sideBySideRows: 10)
        let other = try PostgresStorage(url: url, readers: 1, sideBySideRows: 10)
        let group = { (name: String) in [batch(Self.ids("\(name)-a", 10)), batch(Self.ids("\(name)-b", 10))] }
        _ = try one.commit(group("first"))
        _ = try one.commit(group("second"))
        #expect(one.groupsSideBySide.load(ordering: .relaxed) == 2)
        _ = try other.commit([batch(["other"])])
        // The third group finds the sequence moved on past this instance's own rows: another writer, seen once the
        // third is written, so the fourth and fifth are written whole.
        _ = try one.commit(group("third"))
        _ = try one.commit(group("fourth"))
        _ = try one.commit(group("fifth"))
        #expect(one.groupsSideBySide.load(ordering: .relaxed) == 3)
        #expect(try one.eventCount() == 101)
    }

    @Test("the watch: another writer seen between two groups keeps groups whole for `quiet`, then no more")
    func watch() {
        let now = ContinuousClock.now
        var watch = SequenceWatch()
        watch.wrote([batch(["a", "b"])], start: 100, now: now)
        watch.wrote([batch(["c"])], start: 102, now: now)
        #expect(!watch.othersWriting(now: now))
        watch.wrote([batch(["d"])], start: 104, now: now)
        #expect(watch.othersWriting(now: now))
        #expect(watch.othersWriting(now: now + .seconds(4)))
        #expect(!watch.othersWriting(now: now + SequenceWatch.quiet + .milliseconds(1)))
        // A group that wrote no batch tells nothing.
        watch.wrote([.probe], start: nil, now: now)
        #expect(watch.othersWriting(now: now))
    }
}
