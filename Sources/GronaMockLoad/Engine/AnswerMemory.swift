/// What one answer may keep of the client's answer memory. A lifecycle of its own: an answer starts with
/// nothing, takes a small grant with its first bytes, may grow once to a whole one, and gives it back when it
/// ends; it may wait for either.
enum AnswerGrant: Equatable {
    /// Keeps nothing (between answers, or an answer not yet read).
    case none
    /// `AnswerMemory.smallGrant` bytes: enough for most answers whole.
    case small
    /// Up to the answer's ceiling: its exact length, or its limit and a head.
    case whole(Int)
    /// Not reading, until a small grant can be had.
    case waitingToStart
    /// Not reading, holding a small grant, until it can grow to this many bytes.
    case waitingToGrow(Int)

    /// The bytes of the budget it holds.
    var bytes: Int {
        switch self {
        case .none, .waitingToStart: 0
        case .small, .waitingToGrow: AnswerMemory.smallGrant
        case .whole(let bytes): bytes
        }
    }

    var isWaiting: Bool {
        switch self {
        case .waitingToStart, .waitingToGrow: true
        case .none, .small, .whole: false
        }
    }
}

/// The bytes of answers the load client keeps between reads, for all its connections together, held to a
/// budget that does not grow with them (`--max-in-flight`): a target that streams long or endless answers on
/// every connection costs the generator its budget and no more. (Each connection used to keep up to 32 MiB:
/// 3 GB with 300 installs, issue 28.)
///
/// A connection reads no more than its answer's grant leaves, so what an answer keeps never passes its grant.
/// Most answers fit in a small grant, taken as their first bytes are read; one that needs more (a large
/// configuration, a long head) asks to grow to a whole grant, once. When the budget cannot give a grant, the
/// connection stops reading (the rest of the answer waits at the server, in TCP's buffers) until an answer
/// ends and gives its grant back: answers waiting to grow are served first, in order, then answers waiting to
/// start. Such a wait counts in the answer's latency, and in `waits`, which the report warns about.
///
/// No deadlock: were every answer holding a small grant waiting to grow, none would ever end to make room. So
/// the small grants together are held to `budget - largestGrant`: when nothing but waiting answers is left,
/// what is free is enough for the largest whole grant.
struct AnswerMemory {
    /// A grant every answer gets first: an events acknowledgement, most grants answers, a 304 fit in it whole; a
    /// larger answer (a configuration: the standard workspace's is 18 KiB) reads 16 KiB, then asks for room for
    /// all of it.
    static let smallGrant = 16 * 1024

    /// The answer memory's bytes in all.
    let budget: Int
    /// The largest whole grant one answer may need: the largest answer limit, and a head.
    let largestGrant: Int
    /// Bytes held by grants, and by delivered answers not yet handled (`holdDelivered`).
    private(set) var granted = 0
    /// The part of `granted` held by small grants (waiting to grow or not).
    private(set) var grantedSmall = 0
    /// The most `granted` has been.
    private(set) var peak = 0
    /// Times an answer had to wait for a grant.
    private(set) var waits = 0
    /// Bytes of answers delivered this turn, given back once their completions are handled.
    private var delivered = 0
    /// Slots of connections waiting to grow, and to start, oldest first. An entry whose connection no longer
    /// waits so (it failed, or was served by an older entry of the same slot) is dropped when met.
    private(set) var growing = SlotQueue()
    private(set) var starting = SlotQueue()

    init(budget: Int, largestGrant: Int) {
        self.largestGrant = max(largestGrant, Self.smallGrant)
        // Room for the largest whole grant beside at least one small one.
        self.budget = max(budget, self.largestGrant + Self.smallGrant)
    }

    /// The most the small grants may hold together.
    var smallLimit: Int { budget - largestGrant }

    /// Gives a small grant to an answer that has none, or makes it wait (queued under `slot`).
    mutating func start(_ grant: inout AnswerGrant, slot: Int) -> Bool {
        guard grant == .none || grant == .waitingToStart else { return grant.bytes > 0 }
        guard grantedSmall + Self.smallGrant <= smallLimit, granted + Self.smallGrant <= budget else {
            if grant == .none {
                grant = .waitingToStart
                waits += 1
                starting.push(slot)
            }
            return false
        }
        grant = .small
        take(Self.smallGrant, small: true)
        return true
    }

    /// Grows a small grant to a whole one of `bytes` (at most `largestGrant`), or makes it wait (queued under
    /// `slot`).
    mutating func grow(_ grant: inout AnswerGrant, to bytes: Int, slot: Int) -> Bool {
        let bytes = min(bytes, largestGrant)
        switch grant {
        case .small, .waitingToGrow:
            guard granted - Self.smallGrant + bytes <= budget else {
                if grant == .small {
                    grant = .waitingToGrow(bytes)
                    waits += 1
                    growing.push(slot)
                }
                return false
            }
            give(Self.smallGrant, small: true)
            take(bytes, small: false)
            grant = .whole(bytes)
            return true
        case .none, .whole, .waitingToStart:
            return false
        }
    }

    /// Gives back what a whole grant holds beyond `bytes` (its answer turned out shorter).
    mutating func shrink(_ grant: inout AnswerGrant, to bytes: Int) {
        guard case .whole(let held) = grant, bytes < held else { return }
        give(held - max(0, bytes), small: false)
        grant = .whole(max(0, bytes))
    }

    /// Ends an answer's grant. `delivered` bytes of it (the answer's body, handed over) stay counted until
    /// `releaseDelivered`, since they are alive until the answer is handled.
    mutating func release(_ grant: inout AnswerGrant, delivered kept: Int = 0) {
        let bytes = grant.bytes
        let small = grant == .small || grant.isWaiting
        grant = .none
        guard bytes > 0 else { return }
        give(bytes, small: small)
        let kept = min(max(0, kept), bytes)
        take(kept, small: false)
        delivered += kept
    }

    /// The answers delivered this turn were handled: their bytes are free.
    mutating func releaseDelivered() {
        give(delivered, small: false)
        delivered = 0
    }

    /// The next slot waiting to grow (or to start), dropped from its queue.
    mutating func nextGrowing() -> Int? { growing.pop() }
    mutating func nextStarting() -> Int? { starting.pop() }

    /// Puts a slot that could not be served yet back at the head of its queue.
    mutating func keepGrowing(_ slot: Int) { growing.pushFront(slot) }
    mutating func keepStarting(_ slot: Int) { starting.pushFront(slot) }

    /// Drops the entries of connections that no longer wait, once a queue holds more than `limit` (a queue
    /// must not grow with stale entries while the budget stays spent).
    mutating func prune(limit: Int, stillWaiting: (Int) -> Bool) {
        if growing.count > limit { growing.keep(where: stillWaiting) }
        if starting.count > limit { starting.keep(where: stillWaiting) }
    }

    private mutating func take(_ bytes: Int, small: Bool) {
        granted += bytes
        if small { grantedSmall += bytes }
        peak = max(peak, granted)
    }

    private mutating func give(_ bytes: Int, small: Bool) {
        granted -= bytes
        if small { grantedSmall -= bytes }
    }
}

/// A FIFO of connection slots, amortised O(1).
struct SlotQueue {
    private var items: [Int] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }

    mutating func push(_ slot: Int) { items.append(slot) }

    mutating func pushFront(_ slot: Int) {
        if head > 0 {
            head -= 1
            items[head] = slot
        } else {
            items.insert(slot, at: 0)
        }
    }

    mutating func pop() -> Int? {
        guard head < items.count else { return nil }
        let slot = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return slot
    }

    mutating func keep(where wanted: (Int) -> Bool) {
        items = items[head...].filter(wanted)
        head = 0
    }
}
