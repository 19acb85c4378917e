import GronaMockPlatform

/// The events of the last committed batches, accepted and rejected, numbered in the order they were
/// committed: what `GET /_mock/events/live` streams to the dashboard (docs/dashboard.md).
///
/// **Ingestion never waits for a viewer.** The writer appends a whole group of batches under the lock, which
/// is all it does here: no formatting, no copy of an event, nothing per viewer. Each viewer reads at its own
/// cursor, on the viewers' thread (`LiveViewers`); one that falls behind the oldest event kept is told how
/// many it missed (a `gap`) and goes on from there.
///
/// **Bounded.** At most `capacity` events and `byteCapacity` bytes of their JSON are kept (a single batch larger
/// than either is kept whole, and a batch is at most 512 KiB); older batches are dropped as newer ones arrive.
package final class LiveFeed: Sendable {
    /// One committed batch. Its events are numbered from `firstID`: the accepted ones in their order, then the
    /// rejected ones.
    struct Entry: Sendable {
        let firstID: Int
        let batch: EventBatch
        /// Positions in `batch.accepted` of events that were already stored (not stored again).
        let duplicateIndexes: [Int]
        /// Its events as SSE text, made by the first viewer that reads them (`LiveEventText.format`).
        let formatted: Lazy<LiveEventText.Formatted>
        /// The bytes of its events' JSON and fields, counted against `byteCapacity`.
        let bytes: Int

        var count: Int { batch.accepted.count + batch.rejected.count }
        /// One past the id of its last event.
        var endID: Int { firstID + count }
    }

    private struct Ring {
        var entries: [Entry] = []
        /// Entries before `head` are dropped; they are removed from the array in bulk, so that a drop is O(1)
        /// amortized.
        var head = 0
        var kept = 0
        var keptBytes = 0
        var nextID = 1
    }

    package let capacity: Int
    package let byteCapacity: Int
    private let ring = Mutex(Ring())
    /// The id of the newest event (0: none yet), read without the lock by the viewers' thread.
    private let newest = Atomic<Int>(0)
    /// Told after each append: the viewers' thread, woken once per group of batches whatever the viewers.
    private let listener = Mutex<Listener?>(nil)

    /// The listener, in a struct: a function type as a `Mutex`'s value is stored at its most general
    /// abstraction, and `withLock` gave its body a reabstracted copy and stored that back, two more thunks
    /// around the closure on every append. Telling the viewers grew slower with every commit (15 % of the
    /// writer's time after a few seconds under load, `perf`) and would in time have overflowed the stack.
    /// A struct is passed as it is stored.
    private struct Listener: Sendable {
        let notify: @Sendable () -> Void
    }

    package init(capacity: Int, byteCapacity: Int = .max) {
        self.capacity = max(1, capacity)
        self.byteCapacity = max(1, byteCapacity)
    }

    /// The id of the newest event appended, 0 before the first.
    package var newestID: Int { newest.load(ordering: .acquiring) }

    /// Sets the one function told after each append.
    func onAppend(_ listener: @escaping @Sendable () -> Void) {
        self.listener.withLock { $0 = Listener(notify: listener) }
    }

    /// Appends the batches of one committed group. Called by the writer after the answers are sent.
    func append(_ written: [(EventBatch, EventBatchResult)]) {
        guard !written.isEmpty else { return }
        // Made before the lock, so that it is held for the append only.
        let boxes = written.map { _ in Lazy<LiveEventText.Formatted>() }
        let sizes = written.map { batch, _ in
            batch.accepted.bytes.count + batch.rejected.reduce(0) { $0 + $1.json.count }
        }
        let (last, dropped) = ring.withLock { ring -> (Int, ArraySlice<Entry>) in
            for (index, (batch, result)) in written.enumerated() {
                let entry = Entry(
                    firstID: ring.nextID, batch: batch, duplicateIndexes: result.duplicateIndexes,
                    formatted: boxes[index], bytes: sizes[index])
                guard entry.count > 0 else { continue }
                ring.nextID += entry.count
                ring.kept += entry.count
                ring.keptBytes += entry.bytes
                ring.entries.append(entry)
            }
            while (ring.kept > capacity || ring.keptBytes > byteCapacity) && ring.entries.count - ring.head > 1 {
                ring.kept -= ring.entries[ring.head].count
                ring.keptBytes -= ring.entries[ring.head].bytes
                ring.head += 1
            }
            var dropped: ArraySlice<Entry> = []
            if ring.head > 0 && ring.head * 2 >= ring.entries.count {
                dropped = ring.entries[..<ring.head]
                ring.entries.removeFirst(ring.head)
                ring.head = 0
            }
            return (ring.nextID - 1, dropped)
        }
        // The dropped batches are freed here, outside the lock.
        _ = consume dropped
        newest.store(last, ordering: .releasing)
        listener.withLock { $0 }?.notify()
    }

    /// The id of the first event still kept, and the kept entries holding events after `cursor`, at most
    /// `limit` of them. The entries are values sharing their storage: nothing is copied under the lock.
    func entries(after cursor: Int, limit: Int) -> (oldestID: Int, entries: [Entry]) {
        ring.withLock { ring in
            let live = ring.entries[ring.head...]
            guard let first = live.first else { return (ring.nextID, []) }
            var low = live.startIndex
            var high = live.endIndex
            while low < high {
                let middle = low + (high - low) / 2
                if live[middle].endID <= cursor + 1 { low = middle + 1 } else { high = middle }
            }
            return (first.firstID, Array(live[low..<min(live.endIndex, low + max(1, limit))]))
        }
    }

    /// The id of the first event still kept (the next id when none is).
    var oldestID: Int {
        ring.withLock { ring in ring.entries.count > ring.head ? ring.entries[ring.head].firstID : ring.nextID }
    }
}

/// A value made once, on first use, by whoever asks first; later callers get the same value.
final class Lazy<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)

    func get(_ make: () -> Value) -> Value {
        value.withLock { value in
            if let value { return value }
            let made = make()
            value = made
            return made
        }
    }
}
