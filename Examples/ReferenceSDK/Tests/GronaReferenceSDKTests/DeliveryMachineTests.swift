import GronaReferenceSDK
import Testing

/// The delivery state machine alone: no sockets, no clock but the `nowMs` each input carries.
@Suite("Event delivery (service protocol, Delivery)")
struct DeliveryMachineTests {
    static func machine(
        batch: Int = 3, ageMs: Int64 = 10_000, queued: Int = 100, mutation: Mutation? = nil
    ) -> DeliveryMachine {
        DeliveryMachine(settings: .init(maxBatchSize: batch, maxAgeMs: ageMs, maxQueued: queued), mutation: mutation)
    }

    static func event(_ number: Int, at timestampMs: Int64 = 1_000) -> QueuedEvent {
        QueuedEvent(eventID: "e\(number)", timestampMs: timestampMs, json: ["eventID": .string("e\(number)")])
    }

    static func ids(_ action: DeliveryMachine.Action) -> [String] {
        if case .send(let batch) = action { return batch.events.map(\.eventID) }
        return []
    }

    @Test("a batch goes as soon as maxBatchSize events are queued, not before")
    func bySize() {
        var machine = Self.machine()
        #expect(machine.enqueue(Self.event(1)) == .none)
        #expect(machine.enqueue(Self.event(2)) == .none)
        #expect(Self.ids(machine.enqueue(Self.event(3))) == ["e1", "e2", "e3"])
        #expect(machine.pendingCount == 3)
        #expect(machine.responded(.delivered, nowMs: 1_000) == .none)
        #expect(machine.pendingCount == 0)
    }

    @Test("a batch goes when the oldest queued event is maxAgeMs old")
    func byAge() {
        var machine = Self.machine()
        _ = machine.enqueue(Self.event(1, at: 1_000))
        _ = machine.enqueue(Self.event(2, at: 5_000))
        #expect(machine.nextDeadlineMs == 11_000)
        #expect(machine.timerFired(nowMs: 10_999) == .none)
        #expect(Self.ids(machine.timerFired(nowMs: 11_000)) == ["e1", "e2"])
    }

    @Test("with maxAgeMs 0 no event waits")
    func noWaiting() {
        var machine = Self.machine(ageMs: 0)
        #expect(Self.ids(machine.enqueue(Self.event(1))) == ["e1"])
    }

    @Test("Retry-After: 0 still waits a second, so a server that keeps refusing is not hammered")
    func retryAfterZero() {
        var machine = Self.machine()
        for number in 1...3 { _ = machine.enqueue(Self.event(number)) }
        _ = machine.responded(DeliveryOutcome(status: 503, retryAfter: "0", nowMs: 0), nowMs: 0)
        #expect(machine.nextDeadlineMs == 1_000)
    }

    @Test("a flush sends what is queued, one batch on the wire at a time")
    func flush() {
        var machine = Self.machine()
        _ = machine.enqueue(Self.event(1))
        #expect(Self.ids(machine.flush()) == ["e1"])
        #expect(machine.enqueue(Self.event(2)) == .none)
        #expect(machine.flush() == .none)
        _ = machine.responded(.delivered, nowMs: 1_000)
        #expect(Self.ids(machine.flush()) == ["e2"])
        _ = machine.responded(.delivered, nowMs: 1_000)
        #expect(machine.flush() == .none)
    }

    @Test("a 5xx or a dropped connection sends the same batch again after 1 s, 2 s, 4 s … at most 60 s")
    func backoff() {
        var machine = Self.machine()
        for number in 1...3 { _ = machine.enqueue(Self.event(number)) }
        var now: Int64 = 1_000
        var waits: [Int64] = []
        for _ in 0..<9 {
            #expect(machine.responded(.failed, nowMs: now) == .none)
            let due = machine.nextDeadlineMs ?? 0
            waits.append(due - now)
            #expect(machine.timerFired(nowMs: due - 1) == .none)
            #expect(Self.ids(machine.timerFired(nowMs: due)) == ["e1", "e2", "e3"])
            now = due
        }
        #expect(waits == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000])
        _ = machine.responded(.delivered, nowMs: now)
        // A success starts the count again.
        for number in 4...6 { _ = machine.enqueue(Self.event(number)) }
        _ = machine.responded(.failed, nowMs: now)
        #expect(machine.nextDeadlineMs == now + 1_000)
    }

    @Test("429 or 503 with Retry-After: nothing at all is sent before it has passed")
    func retryAfter() {
        var machine = Self.machine()
        for number in 1...3 { _ = machine.enqueue(Self.event(number)) }
        let outcome = DeliveryOutcome(status: 429, retryAfter: "5", nowMs: 1_000)
        #expect(outcome == .retryAfter(ms: 5_000))
        _ = machine.responded(outcome, nowMs: 1_000)
        for number in 4...6 { #expect(machine.enqueue(Self.event(number)) == .none) }
        #expect(machine.flush() == .none)
        #expect(machine.timerFired(nowMs: 5_999) == .none)
        #expect(Self.ids(machine.timerFired(nowMs: 6_000)) == ["e1", "e2", "e3"])
        // The events that filled a batch meanwhile go right after.
        #expect(Self.ids(machine.responded(.delivered, nowMs: 6_000)) == ["e4", "e5", "e6"])
    }

    @Test(
        "statuses map to outcomes",
        arguments: [
            (200, nil, DeliveryOutcome.delivered), (503, "2", .retryAfter(ms: 2_000)), (503, nil, .failed),
            (429, "Thu, 01 Jan 1970 00:00:03 GMT", .retryAfter(ms: 2_000)), (500, "9", .failed), (502, nil, .failed),
            (400, nil, .refused), (413, nil, .refused), (404, nil, .refused), (429, "soon", .failed),
        ] as [(Int, String?, DeliveryOutcome)])
    func outcomes(status: Int, retryAfter: String?, expected: DeliveryOutcome) {
        #expect(DeliveryOutcome(status: status, retryAfter: retryAfter, nowMs: 1_000) == expected)
    }

    @Test("another 4xx drops the batch; it is never sent again")
    func refusedIsDropped() {
        var machine = Self.machine()
        for number in 1...3 { _ = machine.enqueue(Self.event(number)) }
        _ = machine.responded(.refused, nowMs: 1_000)
        #expect(machine.pendingCount == 0)
        #expect(machine.flush() == .none)
        #expect(machine.nextDeadlineMs == nil)
    }

    @Test("offline nothing is sent and events are kept; back online the backlog goes once")
    func offlineBacklog() {
        var machine = Self.machine(batch: 2)
        #expect(machine.networkChanged(online: false, nowMs: 1_000) == .none)
        for number in 1...3 { #expect(machine.enqueue(Self.event(number)) == .none) }
        #expect(machine.flush() == .none)
        #expect(machine.nextDeadlineMs == nil)
        #expect(machine.timerFired(nowMs: 100_000) == .none)
        #expect(Self.ids(machine.networkChanged(online: true, nowMs: 100_000)) == ["e1", "e2"])
        _ = machine.responded(.delivered, nowMs: 100_000)
        #expect(Self.ids(machine.flush()) == ["e3"])
        _ = machine.responded(.delivered, nowMs: 100_000)
        #expect(machine.pendingCount == 0)
    }

    @Test("a batch held by a backoff keeps its time across going offline and back")
    func offlineKeepsBackoff() {
        var machine = Self.machine()
        for number in 1...3 { _ = machine.enqueue(Self.event(number)) }
        _ = machine.responded(.failed, nowMs: 1_000)
        _ = machine.networkChanged(online: false, nowMs: 1_500)
        #expect(machine.networkChanged(online: true, nowMs: 1_600) == .none)
        #expect(machine.nextDeadlineMs == 2_000)
        #expect(Self.ids(machine.timerFired(nowMs: 2_000)) == ["e1", "e2", "e3"])
    }

    @Test("past maxQueued the oldest queued events are dropped")
    func maxQueued() {
        var machine = Self.machine(batch: 10, queued: 3)
        _ = machine.networkChanged(online: false, nowMs: 0)
        for number in 1...5 { _ = machine.enqueue(Self.event(number)) }
        #expect(machine.pendingCount == 3)
        #expect(machine.droppedCount == 2)
        #expect(Self.ids(machine.networkChanged(online: true, nowMs: 0)) == ["e3", "e4", "e5"])
    }

    @Test("the mutants break what they name")
    func mutants() {
        var resend = Self.machine(mutation: .resendAfter200)
        for number in 1...3 { _ = resend.enqueue(Self.event(number)) }
        #expect(Self.ids(resend.responded(.delivered, nowMs: 0)) == ["e1", "e2", "e3"])

        var newIDs = Self.machine(mutation: .newEventIDsOnRetry)
        for number in 1...3 { _ = newIDs.enqueue(Self.event(number)) }
        _ = newIDs.responded(.failed, nowMs: 0)
        #expect(!Self.ids(newIDs.timerFired(nowMs: 1_000)).contains("e1"))

        var noBackoff = Self.machine(mutation: .noBackoff)
        for number in 1...3 { _ = noBackoff.enqueue(Self.event(number)) }
        _ = noBackoff.responded(.failed, nowMs: 0)
        #expect(noBackoff.nextDeadlineMs == 1)

        var ignoreRetryAfter = Self.machine(mutation: .ignoreRetryAfter)
        for number in 1...3 { _ = ignoreRetryAfter.enqueue(Self.event(number)) }
        _ = ignoreRetryAfter.responded(.retryAfter(ms: 5_000), nowMs: 0)
        #expect(ignoreRetryAfter.nextDeadlineMs == 1_000)

        var drops = Self.machine(mutation: .offlineDropsBacklog)
        _ = drops.enqueue(Self.event(1))
        _ = drops.networkChanged(online: false, nowMs: 0)
        _ = drops.enqueue(Self.event(2))
        #expect(drops.networkChanged(online: true, nowMs: 0) == .none)
        #expect(drops.pendingCount == 0)
    }
}
