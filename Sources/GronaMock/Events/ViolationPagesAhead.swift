import Dispatch
import GronaMockPlatform

/// The next pages of violations for a client that follows the pages, made while the client reads the page it has.
///
/// A client following `nextCursor` alternates with the server: it waits while a page is checked, then the server
/// waits while the client reads and parses it. In a workspace where every visit violates, a page of 1,000 is some
/// 2,300 events to check and 300 KB of JSON to parse, and the two took turns on two idle cores (issue 32). Once a
/// client has asked for a page *with a cursor* (it is following pages, not looking at the first), the pages after
/// it are checked ahead in one *run*: one scan that goes on from page to page (`ViolationScan`'s `pageEnded`), so
/// each page is not a new statement, a new seek and the visit it resumes in checked again. The next request takes
/// its page when it arrives, waiting for it if it is being made.
///
/// What it may answer: the page for exactly that query and cursor, checked through the same events (a cursor fixes
/// the last sequence), a moment earlier than the client asked. A workspace change, a deleted event, a clock move or
/// a grant issued for the workspace (what the check reads besides the rows) drops what was made ahead for it, and
/// a page still being made when that happens is thrown away and ends its run, so an answer never predates a change
/// the client could have seen (deletes are published before their answers for this).
///
/// Memory and threads, whatever the client does: once `runAhead` of its pages wait untaken (a client that reads
/// slower than the server checks), a run pauses where it is, and goes on as the client takes one; a run paused for
/// `pause` with nothing taken (a client that stopped following) ends, and a later request starts another from
/// where the client is. Pausing rather than ending keeps what the run's scan holds: a page that ends inside one
/// huge visit (every event with the same visit id, a broken SDK's shape) was judged again from the visit's start
/// by every new run, some 50 times over 300,000 such events. At most `capacity` pages are made or being made, by
/// at most `maxRuns` runs at once; a page nobody takes is dropped `lifetime` after it was made. No storage
/// statement or thread is held while no run is under way or paused. With several instances on one database
/// nothing is made ahead (`capacity` 0): another instance's deletes reach this one by no notification. While
/// `--max-events` trims the oldest events, a page made ahead may name some just trimmed, as a page checked at that
/// moment may.
final class ViolationPagesAhead: Sendable {
    /// A page is made ahead for the same workspace and the same query, down to the cursor.
    struct Key: Hashable, Sendable {
        var workspace: String
        var query: ViolationQuery
    }

    /// Hands a run's next page over; answers whether the run goes on to the page after it.
    typealias Deliver = (ViolationReport) -> Bool

    /// Where one page made ahead stands. A slot is made `making`, and leaves it once: `ready` with the page, or
    /// gone (failed, or stale when its workspace changed meanwhile).
    private enum Slot {
        /// Being checked by run `run`; `finished` is left when it ends, `stale` is set by a change to its
        /// workspace.
        case making(finished: DispatchGroup, stale: Bool, run: Int)
        case ready(ViolationReport, madeAt: ContinuousClock.Instant, run: Int)
    }

    /// A run waiting for its client to take one of its pages, to make `following` next. Whoever decides its fate
    /// sets `resumed` under the lock and signals `wake`: a take that made room marks `following` as being made
    /// right then (`.making` with the run's group), so that the client's request for it, however soon it comes,
    /// waits for it instead of checking it again beside the run; a change to the workspace, or a stop, ends it.
    private struct Pause {
        enum Resumed {
            case making(DispatchGroup)
            case ended
        }

        let following: Key
        let wake: DispatchSemaphore
        var resumed: Resumed?
    }

    private struct State {
        var slots: [Key: Slot] = [:]
        var paused: [Int: Pause] = [:]
        var runs = 0
        var lastRun = 0
        var stopped = false
    }

    static let standardCapacity = 8
    static let standardRunAhead = 4
    static let standardMaxRuns = 2
    static let standardLifetime: Duration = .seconds(30)
    /// A client following the pages asks for the next within milliseconds of its last; one that stopped holds a
    /// paused run's scan (a reader connection, a snapshot the write-ahead log cannot be checkpointed past) this
    /// long at most.
    static let standardPause: Duration = .seconds(2)

    private let state = Mutex(State())
    /// Pages answered from what was made ahead, for tests and the metrics.
    let taken = Atomic<Int>(0)
    /// Runs started, for tests: each is a scan of its own.
    let started = Atomic<Int>(0)
    private let queue = DispatchQueue(label: "grona-violations-ahead", attributes: .concurrent)
    private let running = DispatchGroup()
    private let capacity: Int
    private let runAhead: Int
    private let maxRuns: Int
    private let lifetime: Duration
    private let pause: Duration

    init(
        capacity: Int = standardCapacity, runAhead: Int = standardRunAhead, maxRuns: Int = standardMaxRuns,
        lifetime: Duration = standardLifetime, pause: Duration = standardPause
    ) {
        self.capacity = capacity
        self.runAhead = max(1, runAhead)
        self.maxRuns = maxRuns
        self.lifetime = lifetime
        self.pause = pause
    }

    /// The page made ahead for `key`, waiting for it while it is being made; nil when none was (or it failed, or
    /// its workspace changed): the caller checks it itself.
    func take(_ key: Key) -> ViolationReport? {
        let finished = state.withLock { state -> DispatchGroup? in
            guard case .making(let finished, let stale, _) = state.slots[key] else { return nil }
            // A page already known stale is thrown away when made: the caller checks it now, without waiting.
            return stale ? nil : finished
        }
        finished?.wait()
        return state.withLock { state -> ViolationReport? in
            dropExpired(&state)
            guard case .ready(let report, _, let run) = state.slots[key] else { return nil }
            state.slots[key] = nil
            taken.add(1, ordering: .relaxed)
            // Room for the run that made it, if it waits for some.
            if let pause = state.paused[run], pause.resumed == nil, let finished = reserve(pause.following, run, &state)
            {
                state.paused[run]?.resumed = .making(finished)
                pause.wake.signal()
            }
            return report
        }
    }

    /// Starts a run of pages from `key` with `run`, which checks them in order and hands each to its `Deliver`
    /// (the first is `key`'s, each next one the page at its predecessor's `next`), stopping when told to; unless
    /// `key`'s page is already made or being made, `capacity` pages are, or `maxRuns` runs are under way.
    func prepare(_ key: Key, run: @escaping @Sendable (_ deliver: Deliver) throws -> Void) {
        let finished = DispatchGroup()
        let id = state.withLock { state -> Int? in
            dropExpired(&state)
            guard !state.stopped, state.slots[key] == nil, state.slots.count < capacity, state.runs < maxRuns else {
                return nil
            }
            // Under the lock that saw `stopped` false, so that `stop` never passes a run about to start.
            running.enter()
            finished.enter()
            state.runs += 1
            state.lastRun += 1
            state.slots[key] = .making(finished: finished, stale: false, run: state.lastRun)
            return state.lastRun
        }
        guard let id else { return }
        started.add(1, ordering: .relaxed)
        queue.async { [self] in
            var current = key
            var currentFinished = finished
            // Whether `current`'s page was filed (and its group left): then the run stopped there.
            var delivered = false
            do {
                try run { report in
                    guard !delivered else { return false }
                    delivered = true
                    guard let (next, nextFinished) = deliver(report, for: current, finished: currentFinished, run: id)
                    else { return false }
                    (current, currentFinished, delivered) = (next, nextFinished, false)
                    return true
                }
            } catch {}
            // The page being made when the run ended (it failed, or ended without it) is not coming.
            state.withLock { state in
                if !delivered, case .making(_, _, id) = state.slots[current] { state.slots[current] = nil }
                state.runs -= 1
            }
            if !delivered { currentFinished.leave() }
            running.leave()
        }
    }

    /// A run of one page: `make` checks it.
    func prepare(_ key: Key, _ make: @escaping @Sendable () throws -> ViolationReport) {
        prepare(key) { deliver in _ = deliver(try make()) }
    }

    /// Files `report` as `key`'s page, unless its workspace changed while it was made; then, when the run may go
    /// on, the key of the page after it, marked as being made (under the same lock, so that a request for it,
    /// however soon, waits for it), with its group; nil when the run ends here (making stopped, its workspace
    /// changed, the page is another run's, or nothing was taken for `pause`).
    ///
    /// While `runAhead` of the run's pages wait untaken, or `capacity` pages are held, it waits on the run's thread
    /// until a take makes room (`take` then marks the page), its scan kept as it is.
    private func deliver(
        _ report: ViolationReport, for key: Key, finished: DispatchGroup, run: Int
    ) -> (Key, DispatchGroup)? {
        enum Step {
            case make(Key, DispatchGroup)
            case end
            case wait
        }
        let wake = DispatchSemaphore(value: 0)
        let step = state.withLock { state -> Step in
            guard case .making(_, let stale, _) = state.slots[key] else { return .end }
            guard !stale else {
                state.slots[key] = nil
                return .end
            }
            state.slots[key] = .ready(report, madeAt: .now, run: run)
            guard let cursor = report.next, !state.stopped else { return .end }
            var following = key
            following.query.cursor = cursor
            guard state.slots[following] == nil else { return .end }
            if let nextFinished = reserve(following, run, &state) { return .make(following, nextFinished) }
            state.paused[run] = Pause(following: following, wake: wake)
            return .wait
        }
        finished.leave()
        // A page nobody takes goes when its lifetime ends, not at the next request, which may never come.
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: lifetime.nanoseconds))) { [self] in
            state.withLock { dropExpired(&$0) }
        }
        switch step {
        case .make(let following, let nextFinished): return (following, nextFinished)
        case .end: return nil
        case .wait: break
        }
        _ = wake.wait(timeout: .now() + .nanoseconds(Int(clamping: pause.nanoseconds)))
        // Woken, or timed out: either way what was decided for it holds, a take that made room just as the pause
        // ended included.
        guard let pause = state.withLock({ $0.paused.removeValue(forKey: run) }),
            case .making(let nextFinished)? = pause.resumed
        else { return nil }
        return (pause.following, nextFinished)
    }

    /// Marks `following` as being made by `run` when the run may go on to it now: `runAhead` of its pages do
    /// not wait untaken, fewer than `capacity` are held, and making has not stopped; its group, entered.
    private func reserve(_ following: Key, _ run: Int, _ state: inout State) -> DispatchGroup? {
        guard !state.stopped, state.slots[following] == nil, state.slots.count < capacity else { return nil }
        let waiting = state.slots.values.filter { if case .ready(_, _, run) = $0 { true } else { false } }.count
        guard waiting < runAhead else { return nil }
        let finished = DispatchGroup()
        finished.enter()
        state.slots[following] = .making(finished: finished, stale: false, run: run)
        return finished
    }

    /// Drops what was made ahead for `workspace` (every workspace when nil), and marks what is being made
    /// stale, so it is thrown away when it ends and its run stops.
    func invalidate(workspace: String?) {
        state.withLock { state in
            for (key, slot) in state.slots where workspace == nil || key.workspace == workspace {
                switch slot {
                case .making(let finished, _, let run):
                    state.slots[key] = .making(finished: finished, stale: true, run: run)
                case .ready: state.slots[key] = nil
                }
            }
            // A paused run's scan predates the change: it ends rather than go on.
            for (run, pause) in state.paused
            where pause.resumed == nil && (workspace == nil || pause.following.workspace == workspace) {
                state.paused[run]?.resumed = .ended
                pause.wake.signal()
            }
        }
    }

    /// Makes nothing more ahead, and ends the runs under way at their next page; returns at once.
    func stopMaking() {
        state.withLock { $0.stopped = true }
        invalidate(workspace: nil)
    }

    /// `stopMaking`, then waits for the runs under way to end: before the storage they read closes.
    func stop() {
        stopMaking()
        running.wait()
    }

    /// How many pages are made or being made ahead, for tests.
    var count: Int { state.withLock { $0.slots.count } }

    /// How many runs are under way, paused ones included, for tests.
    var runs: Int { state.withLock { $0.runs } }

    /// How many runs wait for their client to take a page, for tests.
    var pausedRuns: Int { state.withLock { $0.paused.count } }

    /// Whether `key`'s page is made or being made, for tests.
    func holds(_ key: Key) -> Bool { state.withLock { $0.slots[key] != nil } }

    /// How many pages are made and waiting to be taken, for tests.
    var readyCount: Int {
        state.withLock { state in
            state.slots.values.filter { if case .ready = $0 { true } else { false } }.count
        }
    }

    private func dropExpired(_ state: inout State) {
        let now = ContinuousClock.now
        for (key, slot) in state.slots {
            if case .ready(_, let madeAt, _) = slot, madeAt.duration(to: now) > lifetime { state.slots[key] = nil }
        }
    }
}
