import Dispatch
import GronaMockPlatform

/// The engine's event stream: every `EngineEvent`, in one order, to each subscriber.
///
/// Two kinds of subscriber:
/// - a **listener** (`listen`) is called on the publishing thread, in order, and must be quick and never wait:
///   the kill log, the long-poll waiters' wake-up, the live feed's append, the metrics and the cluster's grant
///   queue are listeners, each a lock and a few stores;
/// - a **subscription** (`subscribe`) is a bounded queue its owner drains on a thread of its own: a scenario
///   that reacts to what an SDK sends. A subscriber that falls behind never slows ingestion: past its capacity
///   the oldest events it has not read are dropped, and the next thing it reads is a `missed` notice with how
///   many (as the live feed's viewers get a gap).
///
/// Publishing holds one lock for the fan-out, so every subscriber sees the events in the same order; the
/// fan-out is listeners' calls and queue appends only.
package final class EngineEvents: Sendable {
    /// A listener in a struct: a function type stored as a `Mutex`'s value is reabstracted on every access
    /// (see `LiveFeed.Listener`); a struct is passed as it is stored.
    private struct Listener: Sendable {
        let call: @Sendable (EngineEvent) -> Void
    }

    private struct Subscribers {
        var listeners: [Listener] = []
        var subscriptions: [EngineSubscription] = []
    }

    private let subscribers = Mutex(Subscribers())
    /// How many subscribers want `requestAnswered`: the endpoints publish it only while one does.
    private let requestSubscribers = Atomic<Int>(0)
    /// Serialises the fan-out (see the type's comment). Distinct from `subscribers`, so that a subscription may
    /// end (and unregister) while an event is being handed out.
    private let order = Mutex(())

    package init() {}

    /// Adds a listener for the life of the engine: called on the publishing thread, in order; it must be quick,
    /// must never wait, and must not publish. `requests`: it wants `requestAnswered` too, which the endpoints
    /// then publish for the rest of the engine's life.
    package func listen(requests: Bool = false, _ listener: @escaping @Sendable (EngineEvent) -> Void) {
        subscribers.withLock { $0.listeners.append(Listener(call: listener)) }
        if requests { _ = requestSubscribers.add(1, ordering: .relaxed) }
    }

    /// A queue of the events that `wanted` keeps (all by default), at most `capacity` unread at once.
    /// `requests`: it wants `requestAnswered` too, which the endpoints publish until it is cancelled.
    package func subscribe(
        capacity: Int = 4096, requests: Bool = false, wanted: @escaping @Sendable (EngineEvent) -> Bool = { _ in true }
    ) -> EngineSubscription {
        let subscription = EngineSubscription(capacity: capacity, wanted: wanted) { [weak self] ended in
            self?.subscribers.withLock { $0.subscriptions.removeAll { $0 === ended } }
            if requests { _ = self?.requestSubscribers.subtract(1, ordering: .relaxed) }
        }
        subscribers.withLock { $0.subscriptions.append(subscription) }
        if requests { _ = requestSubscribers.add(1, ordering: .relaxed) }
        return subscription
    }

    /// Whether any subscriber wants `requestAnswered` (one atomic load, on every request to a Grona endpoint).
    package var requestsWanted: Bool { requestSubscribers.load(ordering: .relaxed) > 0 }

    /// How many subscriptions are open (tests wait for it).
    package var subscriptionCount: Int { subscribers.withLock { $0.subscriptions.count } }

    /// Hands `event` to every listener and subscription, in the one order all of them see.
    package func publish(_ event: EngineEvent) {
        order.withLock { _ in
            let (listeners, subscriptions) = subscribers.withLock { ($0.listeners, $0.subscriptions) }
            for listener in listeners { listener.call(event) }
            for subscription in subscriptions { subscription.offer(event) }
        }
    }
}

/// One subscriber's bounded queue of engine events (`EngineEvents.subscribe`), read with `next(timeout:)` on
/// the subscriber's own thread. `cancel()` unregisters it; until then the engine keeps it, and keeps queueing.
package final class EngineSubscription: Sendable {
    /// What a read returns: the next event, or how many were dropped because the queue was full.
    package enum Item: Sendable {
        case event(EngineEvent)
        case missed(Int)
    }

    private struct Queue {
        /// Events before `head` are read; they are removed in bulk, so a read is O(1) amortized.
        var events: [EngineEvent] = []
        var head = 0
        var missed = 0
        var readerWaiting = false
        var cancelled = false

        var unread: Int { events.count - head }
    }

    package let capacity: Int
    private let wanted: @Sendable (EngineEvent) -> Bool
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let ended: @Sendable (EngineSubscription) -> Void

    fileprivate init(
        capacity: Int, wanted: @escaping @Sendable (EngineEvent) -> Bool,
        ended: @escaping @Sendable (EngineSubscription) -> Void
    ) {
        self.capacity = max(1, capacity)
        self.wanted = wanted
        self.ended = ended
    }

    /// Queues `event` if the subscriber wants it; when full, the oldest unread event is dropped and counted.
    fileprivate func offer(_ event: EngineEvent) {
        guard wanted(event) else { return }
        let wakeReader = queue.withLock { queue -> Bool in
            guard !queue.cancelled else { return false }
            if queue.unread >= capacity {
                queue.head += 1
                queue.missed += 1
            }
            if queue.head > 1024 && queue.head * 2 > queue.events.count {
                queue.events.removeFirst(queue.head)
                queue.head = 0
            }
            queue.events.append(event)
            defer { queue.readerWaiting = false }
            return queue.readerWaiting
        }
        if wakeReader { wake.signal() }
    }

    /// The next item, waiting up to `timeout` for one; nil when none came in time or the subscription ended.
    package func next(timeout: Duration) -> Item? {
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: timeout.nanoseconds))
        while true {
            let (item, ended) = queue.withLock { queue -> (Item?, Bool) in
                let item = Self.take(&queue)
                if item == nil && !queue.cancelled { queue.readerWaiting = true }
                return (item, queue.cancelled)
            }
            if let item { return item }
            if ended { return nil }
            if wake.wait(timeout: deadline) == .timedOut {
                // One last look: an event may have come between the wait's end and now.
                return queue.withLock { queue in
                    queue.readerWaiting = false
                    return Self.take(&queue)
                }
            }
        }
    }

    /// The notice of dropped events first, then the oldest unread event; nil when there is nothing.
    private static func take(_ queue: inout Queue) -> Item? {
        guard !queue.cancelled else { return nil }
        if queue.missed > 0 {
            defer { queue.missed = 0 }
            return .missed(queue.missed)
        }
        guard queue.unread > 0 else { return nil }
        defer { queue.head += 1 }
        return .event(queue.events[queue.head])
    }

    /// Ends the subscription: nothing more is queued, and a reader waiting in `next` returns nil.
    package func cancel() {
        let wasOpen = queue.withLock { queue -> Bool in
            defer {
                queue.cancelled = true
                queue.events = []
                queue.head = 0
            }
            return !queue.cancelled
        }
        guard wasOpen else { return }
        wake.signal()
        ended(self)
    }
}
