import GronaMock
import GronaMockJSON
import GronaMockSQLite
import Testing

@testable import GronaMock

/// The shape a broken client makes with one install and one visit id for everything (issue 32): every event
/// in one visit, every one of them a repeat and wrong. What the check holds must not grow with the visit: the
/// repeat lists its first `VisitLedger.listedEvents` events and counts the rest, each event's own violations
/// are answered as it is read, and a page is answered after the events it needs, not after the whole visit.
@Suite("Violations of one visit holding every event")
struct OneVisitViolationTests {
    /// More events than a repeat lists.
    static let events = VisitLedger.listedEvents * 5 / 2

    /// `events` served events in one visit of the control install, which is assigned `control`: every one
    /// says `banner`, so every one is a repeat and a `wrong_assignment`. An action of another campaign with no
    /// served comes first, one with a served before it and one whose served comes after it close the visit.
    static func stream() -> ViolationStream {
        var stream = ViolationStream()
        let install = ViolationsCheckerTests.control
        stream.add("action", install: install, campaign: "checkout-10-off", visit: "v")
        stream.add("action", install: install, visit: "v")
        for _ in 0..<events { stream.add("served", install: install, visit: "v") }
        return stream
    }

    static func storage() throws -> SQLiteStorage {
        try ViolationScanTests.store(stream(), ViolationScanTests.arrivals[0])
    }

    @Test("the repeat lists its first 1,000 events and counts them all, in its JSON and its sentence")
    func repeatCut() throws {
        let storage = try Self.storage()
        let all = try ViolationScanTests.reference(storage, try ViolationScanTests.checker())
        let repeats = all.filter { $0.rule == .repeatedInVisit }
        #expect(repeats.count == 1)
        let repeated = try #require(repeats.first)
        // Stored in order: the served events are sequences 3 on.
        let listed = Array(Int64(3)..<Int64(3 + VisitLedger.listedEvents))
        #expect(repeated.events == listed)
        #expect(repeated.eventIDs == listed.map { "e-\($0)" })
        #expect(repeated.eventCount == Self.events && repeated.isCut)
        #expect(repeated.json["eventCount"] == .number(JSONNumber(Int64(Self.events))))
        let more = Self.events - VisitLedger.listedEvents
        #expect(repeated.message.hasPrefix("\(Self.events) served events (sequences 3, 4, 5, "))
        #expect(repeated.message.contains(", \(listed.last ?? 0) and \(more) more) for campaign \"home-hero\""))
        // The action with no served of its campaign is one; the one whose campaign has served events is not.
        let orphans = all.filter { $0.rule == .actionWithoutServed }
        #expect(orphans.map(\.events) == [[1]])
        #expect(all.filter { $0.rule == .wrongAssignment }.count == Self.events + 1)
    }

    @Test("the checker keeps at most the listed events, and hands each event's violations over at once")
    func checkerBounded() throws {
        let storage = try Self.storage()
        var checker = try ViolationScanTests.checker()
        var found: [Violation] = []
        var taken: [Violation] = []
        var mostKept = 0
        let store = EventStore(readingFrom: storage)
        var filter = EventFilter()
        filter.workspace = "shop"
        var page = EventPage()
        page.limit = EventPage.maxLimit
        repeat {
            let (events, next) = try store.events(filter, page: page)
            for event in events {
                checker.add(event)
                checker.takeEventViolations(into: &found)
                taken += found
                #expect(checker.untakenViolations == 0)
                mostKept = max(mostKept, checker.keptEvents)
            }
            page.cursor = next
        } while page.cursor != nil
        // The listed events of the one group, and the action that had no served when it came.
        #expect(mostKept == VisitLedger.listedEvents + 2)
        found.removeAll()
        _ = try checker.decideVisit { violation, _ in
            found.append(violation)
            return true
        }
        #expect(checker.keptEvents == 0)
        let whole = try ViolationScanTests.reference(storage, try ViolationScanTests.checker())
        #expect((taken + found).map(\.description).sorted() == whole.map(\.description).sorted())
    }

    @Test("a page is answered once its violations are found: the first pages check a few events, not the visit")
    func pagesStream() throws {
        let storage = try Self.storage()
        let last = try storage.lastSequence()
        var query = ViolationQuery()
        query.limit = 7
        let first = try ViolationScan(storage: storage, workspace: "shop", query: query).run(
            try ViolationScanTests.checker(), throughSequence: last)
        #expect(first.violations.count == 7)
        // Every served event has a violation of its own: 7 answered and the 8th found end the page.
        #expect(first.checkedEvents <= 8, "\(first.checkedEvents) events checked for the first page")
        // The one-event violations come as the events are read, the visit's once it ends.
        let followed = try DenseViolationScanTests.follow(storage, limit: 100)
        let rules = followed.violations.map(\.rule)
        let visitRules: Set<ViolationRule> = [.repeatedInVisit, .actionWithoutServed]
        let firstOfVisit = try #require(rules.firstIndex { visitRules.contains($0) })
        #expect(rules[firstOfVisit...].allSatisfy { visitRules.contains($0) })
        let whole = try ViolationScanTests.reference(storage, try ViolationScanTests.checker())
        #expect(followed.violations.map(\.description).sorted() == whole.map(\.description).sorted())
    }

    @Test("a run's pages are, page by page, what a request with each cursor answers", arguments: [1, 7, 1_000])
    func runOfPages(limit: Int) throws {
        let storage = try Self.storage()
        let last = try storage.lastSequence()
        var query = ViolationQuery()
        query.limit = limit
        let pages = try DenseViolationScanTests.runOfPages(storage, query: query, last: last)
        // Each page again, alone, from the cursor before it; pages at the start and the end are enough to
        // see both kinds of resumption (inside the visit's events, inside its own violations).
        try DenseViolationScanTests.expectPagesAnsweredAlone(pages, storage: storage, query: query, last: last) {
            $0 < 30 || $0 >= pages.count - 3
        }
        let whole = try ViolationScanTests.reference(storage, try ViolationScanTests.checker())
        #expect(pages.flatMap(\.violations).map(\.description).sorted() == whole.map(\.description).sorted())
    }

    @Test("filters by time and campaign judge a cut repeat by its first event and its campaign")
    func filters() throws {
        let storage = try Self.storage()
        let whole = try ViolationScanTests.reference(storage, try ViolationScanTests.checker())
        // Events are 100 ms apart from t0 + 100 (sequence 1).
        let since = ViolationStream.t0 + 1_500 * 100
        var query = ViolationQuery()
        query.since = since
        let late = try ViolationScanTests.paged(storage, limit: 50, query: query).violations
        #expect(!late.isEmpty && !late.contains { $0.rule == .repeatedInVisit })
        #expect(
            late.map(\.description).sorted()
                == whole.filter { ($0.events.first ?? 0) >= 1_500 }.map(\.description).sorted())
        query = ViolationQuery()
        query.until = since
        let early = try ViolationScanTests.paged(storage, limit: 50, query: query).violations
        #expect(early.filter { $0.rule == .repeatedInVisit }.map(\.eventCount) == [Self.events])
        #expect(early.count + late.count == whole.count)
        query = ViolationQuery()
        query.campaignID = "home-hero"
        let homeHero = try ViolationScanTests.paged(storage, limit: 1_000, query: query).violations
        // All but the violations of the first action, which is of checkout-10-off.
        #expect(homeHero.count == whole.filter { $0.events != [1] }.count)
        #expect(homeHero.contains { $0.rule == .repeatedInVisit })
    }
}
