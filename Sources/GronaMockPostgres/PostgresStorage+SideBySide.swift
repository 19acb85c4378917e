import Dispatch
import GronaMock
import GronaMockPlatform

/// A group commit of event batches cut in two at a batch boundary, to be written as two transactions side by
/// side on two connections (issue 32).
///
/// One instance writing one group at a time kept one PostgreSQL backend busy: `bench/cluster.sh` measured it at
/// 0.66–0.84x of PostgreSQL's own COPY of the same rows, with PostgreSQL using 0.85 of a core, while two instances
/// on the same database reached 0.73–0.98x with 1.2 cores: the copy's work (the six indexes of `events`) is done by
/// the backend, and one backend is one core. Two halves written at once give one instance what two instances had.
/// They go through exactly the path of a whole group (`ArrivalOrder`'s shared lock and announcement, the COPY, the
/// rewrite skipping stored events), so readers settle on them as on two instances' groups.
///
/// Only when it cannot change an answer: every change is a batch without rejected events (a rejection takes the
/// arrival lock alone, and a delete or a probe orders the group), there are at least two batches and
/// `minimumRows` events, and no event id is in both halves (the first of two copies of an id is the stored one;
/// two transactions could store the second). Each batch sits whole in one half, so each is stored whole or not at
/// all, and each is acknowledged only once both transactions are over.
struct GroupHalves {
    /// Below this many events a group is written whole: a second transaction's round trips and commit cost more
    /// than the halves save.
    static let standardMinimumRows = 256

    let first: [StorageChange]
    let second: [StorageChange]

    init?(_ changes: [StorageChange], minimumRows: Int) {
        guard changes.count >= 2 else { return nil }
        var batches: [EventBatch] = []
        batches.reserveCapacity(changes.count)
        for change in changes {
            guard case .batch(let batch) = change, batch.rejected.isEmpty else { return nil }
            batches.append(batch)
        }
        let rows = batches.reduce(0) { $0 + $1.accepted.count }
        guard rows >= minimumRows else { return nil }
        // The first batch boundary at or past half the events, leaving at least one batch to each half.
        var middle = 0
        var before = 0
        while middle < batches.count - 1 && before * 2 < rows {
            before += batches[middle].accepted.count
            middle += 1
        }
        guard before > 0, before < rows, Self.disjoint(batches[..<middle], batches[middle...]) else { return nil }
        first = Array(changes[..<middle])
        second = Array(changes[middle...])
    }

    /// Whether no workspace and event id is in both runs of batches.
    private static func disjoint(_ one: ArraySlice<EventBatch>, _ other: ArraySlice<EventBatch>) -> Bool {
        var keys = Set<EventRun.Key>(minimumCapacity: one.reduce(0) { $0 + $1.accepted.count })
        for batch in one {
            let rows = batch.accepted
            for row in rows.rows {
                keys.insert(EventRun.Key(workspace: rows.slice(row.workspaceKey), eventID: rows.slice(row.eventID)))
            }
        }
        for batch in other {
            let rows = batch.accepted
            for row in rows.rows
            where keys.contains(EventRun.Key(workspace: rows.slice(row.workspaceKey), eventID: rows.slice(row.eventID)))
            {
                return false
            }
        }
        return true
    }
}

extension PostgresStorage {
    /// Writes the halves at once, the second on the second writing connection; their outcomes in the changes'
    /// order once both are over. When both fail, nothing is stored and the error is thrown as for one group. When
    /// one fails, the other's batches are stored: the failed half is written again alone on the writing connection,
    /// and if that fails too, its changes are answered `.failed` (their clients get the error and may send them
    /// again; the others are acknowledged, as they are stored).
    func commit(_ halves: GroupHalves, start: SequenceStart) throws(StorageError) -> [StorageChangeOutcome] {
        groupsSideBySide.add(1, ordering: .relaxed)
        let secondOutcome = Mutex<Result<[StorageChangeOutcome], StorageError>?>(nil)
        let secondDone = DispatchGroup()
        secondDone.enter()
        sideQueue.async { [self] in
            let result = Result { () throws(StorageError) in
                try commit(halves.second, onSideWriter: true, start: start)
            }
            secondOutcome.withLock { $0 = result }
            secondDone.leave()
        }
        let first = Result { () throws(StorageError) in try commit(halves.first, onSideWriter: false, start: start) }
        secondDone.wait()
        let second =
            secondOutcome.withLock { $0 }
            ?? .failure(StorageError(.failed, "the second half of a group gave no outcome"))
        switch (first, second) {
        case (.success(let one), .success(let other)):
            return one + other
        case (.failure(let error), .failure):
            throw error
        case (.success(let one), .failure):
            sequenceWatch.withLock { $0.halfFailed(now: .now) }
            return one + writtenAgain(halves.second, start: start)
        case (.failure, .success(let other)):
            sequenceWatch.withLock { $0.halfFailed(now: .now) }
            return writtenAgain(halves.first, start: start) + other
        }
    }

    /// A half written again alone after its transaction failed while the other's committed.
    private func writtenAgain(_ changes: [StorageChange], start: SequenceStart) -> [StorageChangeOutcome] {
        do {
            return try commit(changes, onSideWriter: false, start: start)
        } catch {
            return changes.map { _ in .failed(error) }
        }
    }
}

/// The events sequence's last value before a group's first row: the least that any of its transactions read
/// when it entered (`ArrivalOrder.enter`), each before its own rows, so before all of the group's.
final class SequenceStart: Sendable {
    private let least = Mutex<Int64?>(nil)

    func saw(_ last: Int64) { least.withLock { $0 = min($0 ?? last, last) } }

    var value: Int64? { least.withLock { $0 } }
}

/// Whether another instance writes events into this database now, seen from this instance's groups alone, with
/// no query of its own: between two of its groups, the events sequence moved on by more than the events of the
/// first. Then this instance writes its groups whole (`GroupHalves`): with several instances the database
/// already has a transaction from each, and on `bench/cluster.sh`'s two cores two instances writing halves
/// stored 0.84x of what one did (four transactions at once, groups of some 115 events).
///
/// A group rolled back and written again (a stored duplicate met) also moves the sequence on by more than its
/// events: that reads as another writer, and only keeps groups whole for `quiet`. So does a half that failed
/// while the other committed (`halfFailed`): a second connection that cannot be opened (a `max_connections` or
/// per-role limit reached) would otherwise cost every large group a failed attempt and a second write.
struct SequenceWatch {
    /// How long after the last sign of another writer (or of a failed half) groups stay whole.
    static let quiet: Duration = .seconds(5)

    private var lastStart: Int64?
    private var rowsSince = 0
    private var wholeSince: ContinuousClock.Instant?

    /// Whether groups are written whole now: another writer, or a failed half, seen less than `quiet` ago.
    func othersWriting(now: ContinuousClock.Instant) -> Bool {
        guard let wholeSince else { return false }
        return wholeSince.duration(to: now) < Self.quiet
    }

    /// One half of a group failed while the other committed.
    mutating func halfFailed(now: ContinuousClock.Instant) { wholeSince = now }

    /// A group of `changes` was written (or tried) from `start` on.
    mutating func wrote(_ changes: [StorageChange], start: Int64?, now: ContinuousClock.Instant) {
        guard let start else { return }
        if let lastStart, start > lastStart + Int64(rowsSince) { wholeSince = now }
        lastStart = start
        rowsSince = changes.reduce(0) { rows, change in
            guard case .batch(let batch) = change else { return rows }
            return rows + batch.accepted.count
        }
    }
}
