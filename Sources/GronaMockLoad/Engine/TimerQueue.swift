/// A binary min-heap of deadlines for the poll loop: batch ages, retry backoffs, configuration polls, the end
/// of an install's time offline. Stale entries are not removed; their owner ignores a timer it no longer
/// expects (lazy deletion), which keeps every operation O(log n).
package struct TimerQueue<Payload: Sendable>: Sendable {
    package struct Entry: Sendable {
        package var deadline: UInt64
        package var payload: Payload
    }

    private var heap: [Entry] = []

    package init() {}

    package var count: Int { heap.count }
    package var nextDeadline: UInt64? { heap.first?.deadline }

    package mutating func schedule(_ payload: Payload, at deadline: UInt64) {
        heap.append(Entry(deadline: deadline, payload: payload))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The earliest entry if it is due at `now`.
    package mutating func popDue(now: UInt64) -> Entry? {
        guard let first = heap.first, first.deadline <= now else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
