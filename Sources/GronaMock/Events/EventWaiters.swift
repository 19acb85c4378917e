import Dispatch
import Synchronization

/// The `GET /_mock/events/wait` long-polls: each waits until enough matching events are stored, or until
/// its timeout, and is answered from this one thread, which wakes on every commit and at each deadline.
/// Tests call it instead of sleeping and polling.
final class EventWaiters: Sendable {
    private struct Waiter: Sendable {
        var filter: EventFilter
        var count: Int
        var deadline: UInt64
        var responder: HTTPResponder
    }

    private let store: @Sendable () -> EventStore?
    private let waiters = Mutex<[Int: Waiter]>([:])
    private let nextID = Atomic<Int>(0)
    private let signal = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<LoopThread?>(nil)
    private let touched = Mutex<Set<String>?>(nil)

    /// `store` is read lazily: the store and its waiters are created together and refer to each other.
    init(store: @escaping @Sendable () -> EventStore?) {
        self.store = store
        let started = LoopThread.spawn(name: "grona-wait") { [self] in run() }
        thread.withLock { $0 = started }
    }

    func add(filter: EventFilter, count: Int, timeout: Duration, responder: HTTPResponder) {
        let waiter = Waiter(
            filter: filter, count: count, deadline: MonotonicClock.now() + timeout.nanoseconds, responder: responder)
        let id = nextID.add(1, ordering: .relaxed).newValue
        waiters.withLock { $0[id] = waiter }
        // Evaluate at once: the events may already be there.
        touched.withLock { $0 = ($0 ?? []).union([filter.workspace ?? "*"]) }
        signal.signal()
    }

    /// Called after each commit with the workspaces it wrote to.
    func committed(_ workspaces: Set<String>) {
        touched.withLock { $0 = ($0 ?? []).union(workspaces.isEmpty ? ["*"] : workspaces) }
        signal.signal()
    }

    /// Answers every waiter with what there is, and stops the thread.
    func stop() {
        stopping.store(true, ordering: .releasing)
        signal.signal()
        let running = thread.withLock { thread -> LoopThread? in
            defer { thread = nil }
            return thread
        }
        running?.join()
    }

    private func run() {
        while !stopping.load(ordering: .acquiring) {
            let nearest = waiters.withLock { $0.values.map(\.deadline).min() }
            if let nearest {
                let now = MonotonicClock.now()
                let wait = nearest > now ? nearest - now : 0
                _ = signal.wait(timeout: .now() + .nanoseconds(Int(min(wait, 1_000_000_000))))
            } else {
                signal.wait()
            }
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
            let matched = (try? store.count(waiter.filter)) ?? 0
            guard matched >= waiter.count || expired else { continue }
            guard waiters.withLock({ $0.removeValue(forKey: id) }) != nil else { continue }
            var page = EventPage()
            page.limit = min(EventPage.maxLimit, max(1, waiter.count))
            let events = (try? store.events(waiter.filter, page: page).events) ?? []
            let body: JSONObject = [
                "complete": .bool(matched >= waiter.count), "count": .number(JSONNumber(matched)),
                "events": .array(events),
            ]
            waiter.responder.send(HTTPResponse.json(JSONValue.object(body).serialized()))
        }
    }
}
