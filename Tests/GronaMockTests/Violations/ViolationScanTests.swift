import GronaMock
import GronaMockSQLite
import GronaMockTestSupport
import Testing

@testable import GronaMock

/// The check as the endpoint runs it (`ViolationScan` over `GronaStorage.scanEvents`, one visit at a time,
/// paged) against the reference (`ViolationsChecker.check` over every stored event at once, in sequence
/// order), on a stream that breaks every rule, stored in batches that arrive out of order and interleaved.
@Suite("Violations in visit order, paged")
struct ViolationScanTests {
    /// Every way of breaking a rule outside demo mode, applied to the correct stream one after another.
    static func brokenStream() -> ViolationStream {
        var stream = ViolationStream.correct()
        for broken in ViolationsCheckerTests.brokenCases where !broken.demoMode { _ = broken.apply(&stream) }
        return stream
    }

    /// How the stream's events reach the server: `chunk` events a batch, in the order `order` gives the batches,
    /// each batch's events reversed when `reversed`.
    struct Arrival: Sendable, CustomTestStringConvertible {
        var name: String
        var chunk: Int
        var reversed: Bool
        var order: @Sendable (Int) -> [Int]
        var testDescription: String { name }
    }

    static let arrivals: [Arrival] = [
        Arrival(name: "in order, one batch", chunk: 1_000, reversed: false) { Array(0..<$0) },
        Arrival(name: "one event a batch, newest first", chunk: 1, reversed: false) { Array((0..<$0).reversed()) },
        Arrival(name: "batches of 3, each reversed, odd ones first", chunk: 3, reversed: true) { count in
            Array(stride(from: 1, to: count, by: 2)) + Array(stride(from: 0, to: count, by: 2))
        },
        // Two instances each receiving every other batch of 2, their commits interleaved back to front.
        Arrival(name: "two instances' batches interleaved", chunk: 2, reversed: false) { count in
            let first = Array(stride(from: 0, to: count, by: 2))
            let second = Array(stride(from: 1, to: count, by: 2)).reversed()
            return zip(first, second).flatMap { [$0, $1] } + first.dropFirst(min(first.count, second.count))
        },
    ]

    /// Stores `stream` as `arrival` says, through the validator the server uses, in a new database.
    static func store(_ stream: ViolationStream, _ arrival: Arrival) throws -> SQLiteStorage {
        let storage = try SQLiteStorage(path: ":memory:")
        let records = stream.sent.compactMap { sent -> EventRecord? in
            let time = sent.event["timestamp"]?.int64Value ?? 0
            let envelope = EventValidator.Envelope(
                workspaceKey: "shop", installID: sent.installID, sentAt: time, events: [])
            return try? EventValidator.event(sent.event, envelope: envelope, receivedAt: time).get()
        }
        #expect(records.count == stream.sent.count)
        let batches = stride(from: 0, to: records.count, by: arrival.chunk).map {
            Array(records[$0..<min($0 + arrival.chunk, records.count)])
        }
        let order = arrival.order(batches.count)
        #expect(order.sorted() == Array(0..<batches.count))
        for index in order {
            let events = arrival.reversed ? Array(batches[index].reversed()) : batches[index]
            _ = try storage.commit([.batch(EventBatch(workspaceKey: "shop", accepted: events, rejected: []))])
        }
        return storage
    }

    /// The reference: every stored event, in sequence order, through the one-call checker.
    static func reference(_ storage: SQLiteStorage, _ checker: ViolationsChecker) throws -> [Violation] {
        let store = EventStore(readingFrom: storage)
        var filter = EventFilter()
        filter.workspace = "shop"
        var page = EventPage()
        page.limit = EventPage.maxLimit
        var checker = checker
        repeat {
            let (events, next) = try store.events(filter, page: page)
            for event in events { checker.add(event) }
            page.cursor = next
        } while page.cursor != nil
        return checker.finish()
    }

    static func checker() throws -> ViolationsChecker {
        ViolationsChecker(
            workspace: try ViolationWorkspace.shop(), kills: ViolationsCheckerTests.homeHeroKilled,
            grantIssued: IssuedGrants.correct.issued)
    }

    /// Every page of the scan with `limit`, following cursors; the pages' violations in order.
    static func paged(_ storage: SQLiteStorage, limit: Int, query: ViolationQuery = ViolationQuery()) throws
        -> (violations: [Violation], pages: Int)
    {
        var query = query
        query.limit = limit
        var violations: [Violation] = []
        var pages = 0
        let last = try storage.lastSequence()
        repeat {
            let outcome = try ViolationScan(storage: storage, workspace: "shop", query: query).run(
                try checker(), throughSequence: last)
            #expect(outcome.violations.count <= limit)
            violations += outcome.violations
            pages += 1
            // Through the wire's text, as a client pages.
            query.cursor = outcome.next.flatMap { ViolationCursor(text: $0.text) }
            #expect(outcome.next == nil || query.cursor == outcome.next)
        } while query.cursor != nil && pages < 1_000
        return (violations, pages)
    }

    @Test("every rule is found whatever the batches, their order and the page size", arguments: arrivals)
    func everyRuleAcrossPages(_ arrival: Arrival) throws {
        let stream = Self.brokenStream()
        let storage = try Self.store(stream, arrival)
        let expected = try Self.reference(storage, try Self.checker())
        let rules = Set(ViolationsCheckerTests.brokenCases.filter { !$0.demoMode }.map(\.rule))
        #expect(Set(expected.map(\.rule)) == rules)
        for limit in [1, 2, 3, 1_000] {
            let (found, pages) = try Self.paged(storage, limit: limit)
            #expect(found.map(\.description).sorted() == expected.map(\.description).sorted(), "limit \(limit)")
            #expect(pages == (expected.count + limit - 1) / limit, "limit \(limit)")
        }
    }

    @Test("a forged cursor cannot widen the scan past the events stored when it is read")
    func forgedCursorBound() throws {
        let storage = try Self.store(Self.brokenStream(), Self.arrivals[0])
        let last = try storage.lastSequence()
        var query = ViolationQuery()
        query.limit = 1
        query.cursor = ViolationCursor(
            throughSequence: .max, position: EventScanPosition(installID: "", visitID: nil, sequence: 0), skip: 0)
        let outcome = try ViolationScan(storage: storage, workspace: "shop", query: query).run(
            try Self.checker(), throughSequence: last)
        let next = try #require(outcome.next)
        #expect(next.throughSequence == last)
    }

    @Test("a visit split over batches and pages still has its repeat and its served")
    func visitAcrossBatches() throws {
        var stream = ViolationStream()
        let banner = ViolationsCheckerTests.banner
        // One visit: eligible, anchor_visible, exposure, served, action, then a second exposure; one more visit
        // with an action but no served. Sent newest first, one event a batch.
        stream.visit(install: banner, visit: "v-1")
        let repeated = stream.add("exposure", install: banner, visit: "v-1")
        let orphan = stream.add("action", install: banner, visit: "v-2")
        let storage = try Self.store(stream, Self.arrivals[1])
        let (found, _) = try Self.paged(storage, limit: 1)
        #expect(found.map(\.rule) == [.repeatedInVisit, .actionWithoutServed])
        // Newest first: the stored sequence of the nth event sent is count - n + 1.
        let stored = { (sent: Int64) in Int64(stream.sent.count) - sent + 1 }
        #expect(found.first?.events.sorted() == [stored(repeated), stored(3)].sorted())
        #expect(found.last?.events == [stored(orphan)])
    }

    @Test("filters: rule, install, campaign and time; the summary counts what the pages list")
    func filters() throws {
        let storage = try Self.store(Self.brokenStream(), Self.arrivals[2])
        let all = try Self.reference(storage, try Self.checker())
        var query = ViolationQuery()
        query.rules = [.wrongAssignment]
        #expect(
            try Self.paged(storage, limit: 2, query: query).violations.count
                == all.filter { $0.rule == .wrongAssignment }.count)
        query = ViolationQuery()
        query.installID = ViolationsCheckerTests.control
        let control = try Self.paged(storage, limit: 5, query: query).violations
        #expect(!control.isEmpty && control.count < all.count)
        query = ViolationQuery()
        query.campaignID = "checkout-10-off"
        let checkout = try Self.paged(storage, limit: 5, query: query).violations
        #expect(!checkout.isEmpty && checkout.allSatisfy { $0.message.contains("checkout-10-off") })
        query = ViolationQuery()
        query.since = ViolationStream.t0 + 1_000_000
        #expect(try Self.paged(storage, limit: 5, query: query).violations.isEmpty)
        query = ViolationQuery()
        query.summary = true
        let summary = try ViolationScan(storage: storage, workspace: "shop", query: query).run(
            try Self.checker(), throughSequence: try storage.lastSequence())
        for rule in ViolationRule.allCases {
            #expect(summary.counts[rule, default: 0] == all.filter { $0.rule == rule }.count, "\(rule)")
        }
    }
}
