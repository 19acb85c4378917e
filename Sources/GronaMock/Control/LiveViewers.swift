import GronaMockPlatform

/// The viewers of `GET /_mock/events/live`, served by one thread of their own.
///
/// Each viewer's body is an `HTTPBodyStream` whose executor is `park`: the connection asks for the next piece
/// when it has room, and the request waits here, holding no thread, until the feed has news past the
/// viewer's cursor or its heartbeat is due. The thread then makes the piece (`LiveViewer.next`). So ten
/// viewers cost no blocking-pool thread, and a slow viewer only stops asking: the feed keeps its bound, and
/// the viewer is told of the gap when it asks again.
package final class LiveViewers: Sendable {
    /// What the thread knows of one viewer: shared with its `LiveViewer`, read without the viewers' lock.
    final class Progress: Sendable {
        let cursor: Atomic<Int>
        /// Monotonic nanoseconds of the last piece sent; 0 before the first.
        let lastSent = Atomic<UInt64>(0)
        /// A heartbeat is owed now, whatever the interval: set to find out whether the viewer is still there.
        let probe = Atomic<Bool>(false)

        init(cursor: Int) {
            self.cursor = Atomic(cursor)
        }
    }

    private struct Slot {
        let progress: Progress
        /// The viewer's request for its next piece, while it waits.
        var parked: (@Sendable () -> Void)?
    }

    private struct State {
        var slots: [Int: Slot] = [:]
        var nextID = 0
    }

    let feed: LiveFeed
    let options: GronaMockConfiguration.Live
    /// Viewers connected, read by the writer to wake the thread only when someone watches.
    private let connected = Atomic<Int>(0)
    private let state = Mutex(State())
    private let worker = WorkerThread(name: "grona-live")
    private let stopping = Atomic<Bool>(false)

    init(feed: LiveFeed, options: GronaMockConfiguration.Live) {
        self.feed = feed
        self.options = options
        feed.onAppend { [weak self] in
            guard let self, connected.load(ordering: .relaxed) > 0 else { return }
            worker.wake()
        }
        worker.start { [self] in run() }
    }

    /// Viewers connected now.
    package var count: Int { state.withLock { $0.slots.count } }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// A new viewer reading after `cursor`, or nil when `maxViewers` are already connected.
    ///
    /// A viewer that closed its connection (a page reloaded, a filter applied: the browser aborts the fetch)
    /// is only noticed when a write to it fails, since a client's FIN alone may be a half-close. So when the
    /// viewers are full, each waiting one is sent a heartbeat at once: those that left are freed within a
    /// round trip, and the refused viewer's retry finds their places, rather than waiting out the heartbeat.
    func join(cursor: Int) -> (id: Int, progress: Progress)? {
        let (joined, full) = state.withLock { state -> ((id: Int, progress: Progress)?, full: Bool) in
            guard !isStopping else { return (nil, false) }
            guard state.slots.count < options.maxViewers else {
                for slot in state.slots.values { slot.progress.probe.store(true, ordering: .releasing) }
                return (nil, true)
            }
            state.nextID += 1
            let progress = Progress(cursor: cursor)
            state.slots[state.nextID] = Slot(progress: progress)
            _ = connected.add(1, ordering: .relaxed)
            return ((state.nextID, progress), false)
        }
        if full { worker.wake() }
        return joined
    }

    /// The viewer's stream was cancelled or ended: its slot is freed, with any request still parked.
    func leave(_ id: Int) {
        let parked = state.withLock { state -> (@Sendable () -> Void)? in
            guard let slot = state.slots.removeValue(forKey: id) else { return nil }
            _ = connected.subtract(1, ordering: .relaxed)
            return slot.parked
        }
        _ = consume parked
    }

    /// The executor of viewer `id`'s stream: `work` runs on the viewers' thread when there is something to send.
    func park(_ id: Int, _ work: @escaping @Sendable () -> Void) {
        let ready = state.withLock { state -> Bool? in
            guard state.slots[id] != nil, !isStopping else { return nil }
            state.slots[id]?.parked = work
            return state.slots[id].map { due($0.progress, now: MonotonicClock.now()) }
        }
        switch ready {
        case nil: work()  // Gone or stopping: the stream's own checks end it on this thread, at once.
        case true?: worker.wake()
        case false?: break
        }
    }

    /// Ends every stream (each sends its last chunk) and stops the thread: called as the server shuts down,
    /// since a live stream has no end of its own.
    func stop() {
        stopping.store(true, ordering: .releasing)
        worker.stop()
        let parked = state.withLock { state -> [@Sendable () -> Void] in
            var parked: [@Sendable () -> Void] = []
            for (id, slot) in state.slots {
                guard let work = slot.parked else { continue }
                state.slots[id]?.parked = nil
                parked.append(work)
            }
            return parked
        }
        for work in parked { work() }
    }

    private func due(_ progress: Progress, now: UInt64) -> Bool {
        let lastSent = progress.lastSent.load(ordering: .acquiring)
        return progress.cursor.load(ordering: .acquiring) < feed.newestID || lastSent == 0
            || progress.probe.load(ordering: .acquiring)
            || now >= MonotonicClock.deadline(from: lastSent, after: options.heartbeat)
    }

    /// Rounds of pieces are at least this far apart: under a steady flow of commits, each viewer gets one piece
    /// per interval holding several commits, rather than one per commit, which spares the event loops most of
    /// the wake-ups and writes (ingestion's latency is theirs too). Far below what a person can notice.
    static let roundInterval: Duration = .milliseconds(50)

    private func run() {
        var lastRound: UInt64 = 0
        while !isStopping {
            let now = MonotonicClock.now()
            let earliest = MonotonicClock.deadline(from: lastRound, after: Self.roundInterval)
            if lastRound != 0 && now < earliest {
                // A wake-up too soon: the news waits for the rest of the interval (the semaphore keeps count).
                _ = worker.sleep(upTo: .nanoseconds(Int64(clamping: earliest &- now)))
                continue
            }
            var wait = options.heartbeat
            let work = state.withLock { state -> [@Sendable () -> Void] in
                var work: [@Sendable () -> Void] = []
                for (id, slot) in state.slots {
                    guard let parked = slot.parked else { continue }
                    if due(slot.progress, now: now) {
                        state.slots[id]?.parked = nil
                        work.append(parked)
                    } else {
                        let next = MonotonicClock.deadline(
                            from: slot.progress.lastSent.load(ordering: .acquiring), after: options.heartbeat)
                        wait = min(wait, .nanoseconds(Int64(clamping: next &- now)))
                    }
                }
                return work
            }
            for piece in work { piece() }
            if !work.isEmpty { lastRound = now }
            // News and requests that are due wake the thread sooner (`park`, the feed's listener).
            _ = worker.sleep(upTo: wait)
        }
    }
}
