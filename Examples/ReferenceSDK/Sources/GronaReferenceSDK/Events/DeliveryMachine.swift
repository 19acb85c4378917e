import Foundation

/// An event waiting to be delivered: its id and SDK-clock time, and the event as it goes on the wire.
public struct QueuedEvent: Sendable, Equatable {
    public var eventID: String
    public var timestampMs: Int64
    public var json: JSON

    public init(eventID: String, timestampMs: Int64, json: JSON) {
        self.eventID = eventID
        self.timestampMs = timestampMs
        self.json = json
    }
}

/// Events sent together in one request. A retry sends the same batch: the same events, the same `eventID`s
/// (contract §7: duplicates are counted, not stored again, so retries are safe).
public struct Batch: Sendable, Equatable {
    public var events: [QueuedEvent]
    /// Set on the extra send the `resend-after-200` mutant makes, so it makes only one.
    public var isRepeat = false

    public init(events: [QueuedEvent]) {
        self.events = events
    }
}

/// How a batch's request ended (service protocol, "Delivery").
public enum DeliveryOutcome: Sendable, Equatable {
    /// 200: done, never sent again (rejected events included).
    case delivered
    /// Another 4xx: the batch is dropped.
    case refused
    /// 429 or 503 with `Retry-After`: nothing is sent before it has passed.
    case retryAfter(ms: Int64)
    /// Another 5xx, a dropped connection or a cut body: the same batch again after a backoff.
    case failed

    /// The outcome of an answer's status and `Retry-After` (delta-seconds, RFC 9110 §10.2.3; an HTTP-date is
    /// read against `nowMs`, the SDK's clock, which the harness keeps in step with the platform's).
    public init(status: Int, retryAfter: String?, nowMs: Int64) {
        switch status {
        case 200..<300: self = .delivered
        case 429, 503:
            if let wait = retryAfter.flatMap({ Self.retryAfterMs($0, nowMs: nowMs) }) {
                self = .retryAfter(ms: wait)
            } else {
                self = .failed
            }
        case 500..<600: self = .failed
        default: self = .refused
        }
    }

    static func retryAfterMs(_ text: String, nowMs: Int64) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            // At most a day: a larger wait is a server bug, and the SDK would otherwise never send again.
            let seconds = trimmed.utf8.count > 6 ? 86_400 : (Int64(trimmed) ?? 86_400)
            return seconds.clamped(to: 0...86_400) * 1000
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return (Int64(date.timeIntervalSince1970 * 1000) - nowMs).clamped(to: 0...86_400_000)
    }
}

/// Event delivery as one state machine (service protocol, "Delivery"): one `mutating` method per input, each
/// returning what the caller must do, in the manner of AsyncHTTPClient's `HTTP1ConnectionStateMachine`. It does
/// no I/O and reads no clock: the caller passes the SDK clock's `nowMs` and performs `.send`, then reports the
/// outcome with `responded`. Timers are not kept here either: `nextDeadlineMs` says when `timerFired` is due.
public struct DeliveryMachine: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Send as soon as this many events are queued (1 to 500: the contract's per-request limit).
        public var maxBatchSize: Int
        /// Send when the oldest queued event is this old.
        public var maxAgeMs: Int64
        /// The most events kept while they cannot be delivered; the oldest queued go first.
        public var maxQueued: Int

        public init(maxBatchSize: Int, maxAgeMs: Int64, maxQueued: Int) {
            self.maxBatchSize = maxBatchSize.clamped(to: 1...500)
            self.maxAgeMs = max(0, maxAgeMs)
            self.maxQueued = max(1, maxQueued)
        }
    }

    /// A batch that failed, and when it may go again.
    public struct Held: Sendable, Equatable {
        public var batch: Batch
        public var untilMs: Int64
        public var failures: Int
    }

    public enum State: Sendable, Equatable {
        /// Online, nothing on the wire, nothing held back: queued events wait for a trigger.
        case idle
        /// A batch is on the wire; `failures` is how many times it failed before.
        case sending(Batch, failures: Int)
        /// A batch failed; it goes again, and nothing else goes, once `untilMs` has come.
        case waiting(Held)
        /// No network: nothing is sent. A held batch keeps its time; a batch that was on the wire is held.
        case offline(Held?)
    }

    public enum Action: Sendable, Equatable {
        case none
        /// POST this batch now (with `sentAt` from the SDK's clock), then call `responded`.
        case send(Batch)
    }

    public let settings: Settings
    public let mutation: Mutation?
    public private(set) var state: State = .idle
    /// Events not yet in a batch, oldest first.
    public private(set) var queue: [QueuedEvent] = []
    /// Events dropped because more than `maxQueued` waited.
    public private(set) var droppedCount = 0

    public init(settings: Settings, mutation: Mutation? = nil) {
        self.settings = settings
        self.mutation = mutation
    }

    /// Every event not yet delivered: queued, on the wire or held.
    public var pendingCount: Int { queue.count + (currentBatch?.events.count ?? 0) }

    public var isOnline: Bool {
        if case .offline = state { return false }
        return true
    }

    private var currentBatch: Batch? {
        switch state {
        case .idle, .offline(nil): nil
        case .sending(let batch, _): batch
        case .waiting(let held), .offline(let held?): held.batch
        }
    }

    /// When `timerFired` has something to do: the oldest event's age limit, or a held batch's time. Nil while
    /// a batch is on the wire or the network is away.
    public var nextDeadlineMs: Int64? {
        switch state {
        case .idle: queue.first.map { $0.timestampMs + settings.maxAgeMs }
        case .waiting(let held): held.untilMs
        case .sending, .offline: nil
        }
    }

    // MARK: - Inputs

    /// An event was logged. It goes at once if it fills a batch and nothing holds delivery back.
    public mutating func enqueue(_ event: QueuedEvent) -> Action {
        queue.append(event)
        let excess = pendingCount - settings.maxQueued
        if excess > 0 {
            let dropped = min(excess, queue.count)
            queue.removeFirst(dropped)
            droppedCount += dropped
        }
        // A batch is full, or no event may wait at all (maxAgeMs 0).
        guard case .idle = state, queue.count >= settings.maxBatchSize || settings.maxAgeMs == 0 else { return .none }
        return startBatch()
    }

    /// `flush` or `background`: the next batch goes now if delivery may send. Call again after each answer to
    /// send every queued event.
    public mutating func flush() -> Action {
        guard case .idle = state, !queue.isEmpty else { return .none }
        return startBatch()
    }

    /// The SDK clock reached `nowMs`: an old enough queue goes, a held batch whose time has come goes again.
    public mutating func timerFired(nowMs: Int64) -> Action {
        switch state {
        case .idle:
            guard let oldest = queue.first, oldest.timestampMs + settings.maxAgeMs <= nowMs else { return .none }
            return startBatch()
        case .waiting(let held):
            guard held.untilMs <= nowMs else { return .none }
            return resend(held)
        case .sending, .offline:
            return .none
        }
    }

    /// The batch on the wire was answered (or failed) at `nowMs`.
    public mutating func responded(_ outcome: DeliveryOutcome, nowMs: Int64) -> Action {
        guard case .sending(let batch, let failures) = state else { return .none }
        switch outcome {
        case .delivered where mutation == .resendAfter200 && !batch.isRepeat:
            var again = batch
            again.isRepeat = true
            state = .sending(again, failures: failures)
            return .send(again)
        case .delivered, .refused:
            state = .idle
            return queue.count >= settings.maxBatchSize ? startBatch() : .none
        case .retryAfter(let waitMs) where mutation != .ignoreRetryAfter:
            // At least a second: "Retry-After: 0" from a server that keeps refusing must not become a busy loop.
            let wait = max(waitMs, 1_000)
            state = .waiting(Held(batch: batch, untilMs: nowMs + wait, failures: failures))
        case .retryAfter, .failed:
            let failed = failures + 1
            state = .waiting(Held(batch: batch, untilMs: nowMs + backoffMs(failures: failed), failures: failed))
        }
        return .none
    }

    /// The network went away or came back. Back online, a held batch goes once its time has come, and the
    /// backlog goes at once (the caller flushes until nothing is left).
    public mutating func networkChanged(online: Bool, nowMs: Int64) -> Action {
        if !online {
            switch state {
            case .idle: state = .offline(nil)
            case .sending(let batch, let failures):
                // Its answer will be ignored; the batch goes again, with the same eventIDs.
                state = .offline(Held(batch: batch, untilMs: nowMs, failures: failures))
            case .waiting(let held): state = .offline(held)
            case .offline: return .none
            }
            return .none
        }
        guard case .offline(var held) = state else { return .none }
        if mutation == .offlineDropsBacklog {
            droppedCount += pendingCount
            queue.removeAll()
            held = nil
        }
        guard let held else {
            state = .idle
            return flush()
        }
        if held.untilMs <= nowMs { return resend(held) }
        state = .waiting(held)
        return .none
    }

    // MARK: - Transitions

    private mutating func startBatch() -> Action {
        let count = min(settings.maxBatchSize, queue.count)
        let batch = Batch(events: Array(queue.prefix(count)))
        queue.removeFirst(count)
        state = .sending(batch, failures: 0)
        return .send(batch)
    }

    private mutating func resend(_ held: Held) -> Action {
        var batch = held.batch
        if mutation == .newEventIDsOnRetry {
            for index in batch.events.indices {
                let fresh = UUID().uuidString.lowercased()
                batch.events[index].eventID = fresh
                batch.events[index].json = batch.events[index].json.settingMember("eventID", to: .string(fresh))
            }
        }
        state = .sending(batch, failures: held.failures)
        return .send(batch)
    }

    /// The wait after the `failures`-th failure in a row: 1 s, doubling, at most 60 s.
    public func backoffMs(failures: Int) -> Int64 {
        if mutation == .noBackoff { return 1 }
        let exponent = min(max(failures, 1) - 1, 6)
        return min(1000 << Int64(exponent), 60_000)
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self {
        min(max(self, range.lowerBound), range.upperBound)
    }
}

extension JSON {
    /// The object with one member set (added at the end if new); anything else unchanged.
    func settingMember(_ key: String, to value: JSON) -> JSON {
        guard var object = objectValue else { return self }
        object[key] = value
        return .object(object)
    }
}
