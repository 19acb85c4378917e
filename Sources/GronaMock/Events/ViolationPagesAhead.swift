import Dispatch
import GronaMockPlatform

/// The next page of violations for a client that follows the pages, made while the client reads the page it has.
///
/// A client following `nextCursor` alternates with the server: it waits while a page is checked, then the server
/// waits while the client reads and parses it. In a workspace where every visit violates, a page of 1,000 is some
/// 2,300 events to check and 300 KB of JSON to parse, and the two took turns on two idle cores (issue 32). Once a
/// client has asked for a page *with a cursor* (it is following pages, not looking at the first), the page after
/// it is checked ahead on a serial queue of its own, and the next request takes it when it arrives.
///
/// What it may answer: the page for exactly that query and cursor, checked through the same events (a cursor fixes
/// the last sequence), a moment earlier than the client asked. A workspace change, a deleted event, a clock move or
/// a grant issued for the workspace (what the check reads besides the rows) drops what was made ahead for it, and
/// a page still being made when that happens is thrown away, so an answer never predates a change the client
/// could have seen (deletes are published before their answers for this). Memory: at most `capacity` pages, each
/// dropped `lifetime` after it was made if nobody takes it; no storage statement or thread is held between
/// requests. With several instances on one database nothing is made ahead (`capacity` 0): another instance's
/// deletes reach this one by no notification. While `--max-events` trims the oldest events, a page made ahead may
/// name some just trimmed, as a page checked at that moment may.
final class ViolationPagesAhead: Sendable {
    /// A page is made ahead for the same workspace and the same query, down to the cursor.
    struct Key: Hashable, Sendable {
        var workspace: String
        var query: ViolationQuery
    }

    /// Where one page made ahead stands. A slot is made `making`, and leaves it once: `ready` with the page, or
    /// gone (failed, or stale when its workspace changed meanwhile).
    private enum Slot {
        /// Being checked; `finished` is left when it ends, `stale` is set by a change to its workspace.
        case making(finished: DispatchGroup, stale: Bool)
        case ready(ViolationReport, madeAt: ContinuousClock.Instant)
    }

    static let standardCapacity = 4
    static let standardLifetime: Duration = .seconds(30)

    private let slots = Mutex<[Key: Slot]>([:])
    /// Pages answered from what was made ahead, for tests and the metrics.
    let taken = Atomic<Int>(0)
    private let queue = DispatchQueue(label: "grona-violations-ahead")
    private let capacity: Int
    private let lifetime: Duration

    init(capacity: Int = standardCapacity, lifetime: Duration = standardLifetime) {
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// The page made ahead for `key`, waiting for it while it is being made; nil when none was (or it failed, or
    /// its workspace changed): the caller checks it itself.
    func take(_ key: Key) -> ViolationReport? {
        let finished = slots.withLock { slots -> DispatchGroup? in
            guard case .making(let finished, _) = slots[key] else { return nil }
            return finished
        }
        finished?.wait()
        return slots.withLock { slots -> ViolationReport? in
            dropExpired(&slots)
            guard case .ready(let report, _) = slots[key] else { return nil }
            slots[key] = nil
            taken.add(1, ordering: .relaxed)
            return report
        }
    }

    /// Starts checking the page for `key` ahead with `make`, unless it is already made or being made, or
    /// `capacity` pages are.
    func prepare(_ key: Key, _ make: @escaping @Sendable () throws -> ViolationReport) {
        let finished = DispatchGroup()
        let started = slots.withLock { slots -> Bool in
            dropExpired(&slots)
            guard slots[key] == nil, slots.count < capacity else { return false }
            finished.enter()
            slots[key] = .making(finished: finished, stale: false)
            return true
        }
        guard started else { return }
        queue.async { [self] in
            let report = try? make()
            slots.withLock { slots in
                guard case .making(_, let stale) = slots[key] else { return }
                slots[key] = !stale ? report.map { .ready($0, madeAt: .now) } : nil
            }
            finished.leave()
            // A page nobody takes goes when its lifetime ends, not at the next request, which may never come.
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: lifetime.nanoseconds))) { [self] in
                slots.withLock { dropExpired(&$0) }
            }
        }
    }

    /// Drops what was made ahead for `workspace` (every workspace when nil), and marks what is being made
    /// stale, so it is thrown away when it ends.
    func invalidate(workspace: String?) {
        slots.withLock { slots in
            for (key, slot) in slots where workspace == nil || key.workspace == workspace {
                switch slot {
                case .making(let finished, _): slots[key] = .making(finished: finished, stale: true)
                case .ready: slots[key] = nil
                }
            }
        }
    }

    /// How many pages are made or being made ahead, for tests.
    var count: Int { slots.withLock { $0.count } }

    /// How many pages are made and waiting to be taken, for tests.
    var readyCount: Int {
        slots.withLock { slots in
            slots.values.filter { if case .ready = $0 { true } else { false } }.count
        }
    }

    private func dropExpired(_ slots: inout [Key: Slot]) {
        let now = ContinuousClock.now
        for (key, slot) in slots {
            if case .ready(_, let madeAt) = slot, madeAt.duration(to: now) > lifetime { slots[key] = nil }
        }
    }
}
