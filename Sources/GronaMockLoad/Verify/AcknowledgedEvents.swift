/// The events a run got a 200 for, kept as ranges of counters per install: an install's events are numbered
/// in the order it logs them and its batches take them in that order, so a batch is one range and a whole run
/// is a handful of ranges per install, whatever the event count.
package struct AcknowledgedEvents: Sendable, Equatable {
    /// Per install, sorted, disjoint, non-adjacent half-open ranges.
    private var ranges: [[Range<UInt32>]]

    package init(installs: Int) {
        ranges = Array(repeating: [], count: max(0, installs))
    }

    /// Distinct events acknowledged.
    package var count: Int {
        ranges.reduce(0) { total, list in total + list.reduce(0) { $0 + $1.count } }
    }

    package mutating func record(install: Int, first: UInt32, count: Int) {
        guard ranges.indices.contains(install), count > 0 else { return }
        let (end, overflow) = first.addingReportingOverflow(UInt32(clamping: count))
        var new = first..<(overflow ? UInt32.max : end)
        var list = ranges[install]
        // Usually appended at the end: batches are acknowledged in order.
        var kept: [Range<UInt32>] = []
        kept.reserveCapacity(list.count + 1)
        for range in list {
            if range.upperBound < new.lowerBound || range.lowerBound > new.upperBound {
                kept.append(range)
            } else {
                new = min(range.lowerBound, new.lowerBound)..<max(range.upperBound, new.upperBound)
            }
        }
        let position = kept.firstIndex { $0.lowerBound > new.lowerBound } ?? kept.count
        kept.insert(new, at: position)
        list = kept
        ranges[install] = list
    }

    package func contains(install: Int, counter: UInt32) -> Bool {
        guard ranges.indices.contains(install) else { return false }
        let list = ranges[install]
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].upperBound <= counter {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < list.count && list[low].contains(counter)
    }

    /// Every acknowledged event, in install and counter order (for a sample of those lost).
    package func forEachEvent(_ body: (Int, UInt32) -> Bool) {
        for (install, list) in ranges.enumerated() {
            for range in list {
                for counter in range where !body(install, counter) { return }
            }
        }
    }

    package var installs: Int { ranges.count }

    /// Every range of acknowledged counters, in install and counter order (for a shard's `--json` report).
    package func forEachRange(_ body: (Int, Range<UInt32>) -> Void) {
        for (install, list) in ranges.enumerated() {
            for range in list { body(install, range) }
        }
    }
}

/// The run's events a server answered as rejected: scattered singletons (not ranges, which would make each
/// insertion linear in what is held), one word per event, and never an id the run did not log.
package struct RejectedEvents: Sendable, Equatable {
    private var keys: Set<UInt64> = []

    package init() {}

    package var count: Int { keys.count }

    package mutating func insert(install: Int, counter: UInt32) {
        guard let install = UInt32(exactly: install) else { return }
        keys.insert(UInt64(install) << 32 | UInt64(counter))
    }

    package func contains(install: Int, counter: UInt32) -> Bool {
        guard let install = UInt32(exactly: install) else { return false }
        return keys.contains(UInt64(install) << 32 | UInt64(counter))
    }

    /// Every rejected event as (install, counter), in that order.
    package var sorted: [(install: Int, counter: UInt32)] {
        keys.sorted().map { (Int($0 >> 32), UInt32(truncatingIfNeeded: $0)) }
    }
}
