import GronaMockJSON
import GronaMockPlatform

/// What a wait for events found: whether enough came, how many match, and the first of them.
package struct EventWaitOutcome: Sendable {
    package let complete: Bool
    package let count: Int
    /// At most the count asked for (and at most a page), each as the inspection API shows it.
    package let events: [JSONValue]
}

/// A wait that can be given up (its client went): `cancel` removes it at once.
package struct EventWaitTicket: Sendable {
    let cancel: @Sendable () -> Void

    package func callAsFunction() { cancel() }
}

/// The long-polls of `GET /_mock/events/wait` (`GronaMockEngine.waitForEvents`): each waits until enough
/// matching events are stored, or until its timeout, and is answered from this one thread, which wakes on
/// every commit and at each deadline; a waiter given up first (its client went: the route holds the request
/// and cancels the ticket) is removed at once. Tests call it instead of sleeping and polling.
///
/// Each waiter keeps its count (`EventTally`) and, on SQLite, reads only the events stored since. A deletion
/// makes the next count start over; the oldest events dropped at the `--max-events` bound are taken off by
/// counting again only the block of sequences they cut into (65,536 sequences at most).
final class EventWaiters: Sendable {
    private struct Waiter: Sendable {
        var filter: EventFilter
        var count: Int
        var deadline: UInt64
        var deliver: @Sendable (EventWaitOutcome) -> Void
        /// The count so far: each commit's evaluation reads only the events stored since the last.
        var tally: EventTally?
    }

    private let store: @Sendable () -> EventStore?
    private let waiters = Mutex<[Int: Waiter]>([:])
    private let nextID = Atomic<Int>(0)
    private let worker = WorkerThread(name: "grona-wait")
    private let touched = Mutex<Set<String>?>(nil)

    /// `store` is read lazily: the store and its waiters are created together and refer to each other.
    init(store: @escaping @Sendable () -> EventStore?) {
        self.store = store
        worker.start { [self] in run() }
    }

    /// Waits for `count` events matching `filter`, at most `timeout`; `deliver` gets the outcome once, from the
    /// waiters' thread. The ticket gives the wait up: one lock and a removal, nothing slow, so it may be called
    /// on an event loop (a client that goes takes its waiter with it, at once).
    func add(
        filter: EventFilter, count: Int, timeout: Duration, deliver: @escaping @Sendable (EventWaitOutcome) -> Void
    ) -> EventWaitTicket {
        let waiter = Waiter(
            filter: filter, count: count, deadline: MonotonicClock.deadline(from: MonotonicClock.now(), after: timeout),
            deliver: deliver)
        let id = nextID.add(1, ordering: .relaxed).newValue
        waiters.withLock { $0[id] = waiter }
        // Evaluate at once: the events may already be there.
        touched.withLock { $0 = ($0 ?? []).union([filter.workspace ?? "*"]) }
        worker.wake()
        return EventWaitTicket { [weak self] in self?.remove(id) }
    }

    /// Forgets a waiter given up; an evaluation already under way finds it gone and sends nothing.
    private func remove(_ id: Int) {
        waiters.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// How many long-polls are waiting now (a metric; tests wait for it instead of sleeping).
    var pending: Int { waiters.withLock { $0.count } }

    /// Told of each commit with the workspaces it wrote to (every workspace: empty), from the event stream.
    func committed(_ workspaces: Set<String>) {
        touched.withLock { $0 = ($0 ?? []).union(workspaces.isEmpty ? ["*"] : workspaces) }
        worker.wake()
    }

    /// Answers every waiter with what there is, and stops the thread.
    func stop() { worker.stop() }

    private func run() {
        while true {
            // Wake for the nearest deadline, and at least once a second.
            let nearest = waiters.withLock { $0.values.map(\.deadline).min() }
            let now = MonotonicClock.now()
            let timeout = nearest.map { Duration.nanoseconds(Int64(min($0 > now ? $0 - now : 0, 1_000_000_000))) }
            guard worker.sleep(upTo: timeout) else { break }
            evaluate(final: false)
        }
        evaluate(final: true)
    }

    private func evaluate(final: Bool) {
        let changed = touched.withLock { set -> Set<String> in
            defer { set = nil }
            return set ?? []
        }
        let now = MonotonicClock.now()
        let current = waiters.withLock { $0 }
        for (id, waiter) in current {
            let expired = final || now >= waiter.deadline
            let relevant =
                changed.contains("*") || changed.contains(waiter.filter.workspace ?? "*")
                || (waiter.filter.workspace == nil && !changed.isEmpty)
            guard expired || relevant else { continue }
            guard let store = store() else { continue }
            // A failed count keeps the last one: the next commit or the deadline asks again.
            let tally = (try? store.count(waiter.filter, continuing: waiter.tally)) ?? waiter.tally
            let matched = tally?.count ?? 0
            if tally != waiter.tally { waiters.withLock { $0[id]?.tally = tally } }
            guard matched >= waiter.count || expired else { continue }
            guard waiters.withLock({ $0.removeValue(forKey: id) }) != nil else { continue }
            var page = EventPage()
            page.limit = min(EventPage.maxLimit, max(1, waiter.count))
            let events = (try? store.events(waiter.filter, page: page).events) ?? []
            waiter.deliver(EventWaitOutcome(complete: matched >= waiter.count, count: matched, events: events))
        }
    }
}
