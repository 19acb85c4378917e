import GronaMock
import GronaMockJSON
import GronaMockSQLite
import Testing

@testable import GronaMock

/// A visit with more kept events than the ledger holds in memory (`VisitLedger.memoryBound`) is judged from a
/// sort on disk (`VisitSpill`), and answers exactly what the ledger answers in memory: the same violations in
/// the same order, the same pages and cursors, under every filter. The shapes are a broken client's with one
/// install and visit id for everything (issue 32): every event an action without a `served`, every once-only
/// event on a screen of its own.
@Suite("Violations of a visit too large for memory")
struct VisitSpillTests {
    /// Every page of the scan, following cursors, with the visit's memory bound and the sorts' memory limit.
    struct Pages {
        var violations: [Violation] = []
        var pages = 0
        var visitsSpilled = 0
        var mostEventsKept = 0
    }

    static func pages(
        _ storage: SQLiteStorage, limit: Int, query: ViolationQuery = ViolationQuery(), bound: Int,
        sortMemory: Int = 512
    ) throws -> Pages {
        var query = query
        query.limit = limit
        var found = Pages()
        let last = try storage.lastSequence()
        repeat {
            var scan = ViolationScan(storage: storage, workspace: "shop", query: query)
            scan.visitMemoryBound = bound
            scan.visitSpillMemoryLimit = sortMemory
            let outcome = try scan.run(try ViolationScanTests.checker(), throughSequence: last)
            #expect(outcome.violations.count <= limit)
            found.violations += outcome.violations
            found.pages += 1
            found.visitsSpilled += outcome.visitsSpilled
            found.mostEventsKept = max(found.mostEventsKept, outcome.mostEventsKept)
            query.cursor = outcome.next.flatMap { ViolationCursor(text: $0.text) }
        } while query.cursor != nil && found.pages < 10_000
        return found
    }

    /// The summary's counts per rule with the visit's memory bound.
    static func summary(_ storage: SQLiteStorage, bound: Int) throws -> [ViolationRule: Int] {
        var query = ViolationQuery()
        query.summary = true
        var scan = ViolationScan(storage: storage, workspace: "shop", query: query)
        scan.visitMemoryBound = bound
        scan.visitSpillMemoryLimit = 512
        return try scan.run(try ViolationScanTests.checker(), throughSequence: try storage.lastSequence()).counts
    }

    /// The queries compared: none, and each filter the scan applies after the check.
    static func queries() -> [(String, ViolationQuery)] {
        var campaign = ViolationQuery()
        campaign.campaignID = "home-hero"
        var since = ViolationQuery()
        since.since = ViolationStream.t0 + 2_000
        var until = ViolationQuery()
        until.until = ViolationStream.t0 + 3_000
        var rules = ViolationQuery()
        rules.rules = [.repeatedInVisit, .actionWithoutServed]
        return [
            ("none", ViolationQuery()), ("campaign", campaign), ("since", since), ("until", until), ("rules", rules),
        ]
    }

    /// Compares the scan with every visit on disk (a bound of 0 kept events, sorts of 512 bytes: many runs,
    /// merged in more than one pass) with the scan in memory, page by page, under every query.
    /// A large visit's filtered answers are compared on one page (`filteredLimit`): each page checks the visit
    /// again.
    static func expectSameOnDisk(
        _ storage: SQLiteStorage, limits: [Int], filteredLimit: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (name, query) in queries() {
            for limit in name == "none" ? limits : filteredLimit.map({ [$0] }) ?? limits {
                let memory = try pages(storage, limit: limit, query: query, bound: .max)
                let disk = try pages(storage, limit: limit, query: query, bound: 0)
                #expect(memory.visitsSpilled == 0, sourceLocation: sourceLocation)
                #expect(disk.visitsSpilled > 0, "\(name), limit \(limit)", sourceLocation: sourceLocation)
                #expect(
                    disk.violations.map(\.description) == memory.violations.map(\.description),
                    "\(name), limit \(limit)", sourceLocation: sourceLocation)
                #expect(disk.violations == memory.violations, "\(name), limit \(limit)", sourceLocation: sourceLocation)
                #expect(disk.pages == memory.pages, "\(name), limit \(limit)", sourceLocation: sourceLocation)
            }
        }
        #expect(try summary(storage, bound: 0) == summary(storage, bound: .max), sourceLocation: sourceLocation)
    }

    @Test("every rule: a visit judged on disk answers what it answers in memory, page by page, filtered or not")
    func everyRule() throws {
        let storage = try ViolationScanTests.store(ViolationScanTests.brokenStream(), ViolationScanTests.arrivals[2])
        let expected = try ViolationScanTests.reference(storage, try ViolationScanTests.checker())
        #expect(
            expected.contains { $0.rule == .repeatedInVisit } && expected.contains { $0.rule == .actionWithoutServed })
        try Self.expectSameOnDisk(storage, limits: [1, 3, 1_000])
    }

    /// One visit of the control install where every event is an action or dismissal, of two campaigns: the
    /// first (`home-hero`) has a `served` halfway, so its actions are no violation; the other has none.
    static func actionsStream(count: Int) -> ViolationStream {
        var stream = ViolationStream()
        let install = ViolationsCheckerTests.control
        for index in 0..<count {
            if index == count / 2 { stream.add("served", install: install, arm: "control", visit: "v") }
            stream.add(
                index % 3 == 0 ? "dismiss" : "action", install: install,
                campaign: index % 2 == 0 ? "home-hero" : "checkout-10-off", visit: "v")
        }
        return stream
    }

    @Test("every event an action: the ledger keeps its bound, the rest is sorted on disk, nothing changes")
    func actions() throws {
        // The other campaign's actions and dismissals have no served: half the events are a violation.
        try Self.expectOneVisit(
            Self.actionsStream(count: 2_000), rule: .actionWithoutServed, violations: 1_000, keptInMemory: 1_000)
    }

    /// One large visit judged in memory and on disk past 100 kept events: `violations` of `rule`, at least
    /// `keptInMemory` events kept by the ledger in memory and never more than the bound on disk, the same answers.
    static func expectOneVisit(
        _ stream: ViolationStream, rule: ViolationRule, violations: Int, keptInMemory: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let storage = try ViolationScanTests.store(stream, ViolationScanTests.arrivals[0])
        let memory = try pages(storage, limit: 10_000, bound: .max)
        let disk = try pages(storage, limit: 10_000, bound: 100)
        #expect(memory.violations.filter { $0.rule == rule }.count == violations, sourceLocation: sourceLocation)
        #expect(memory.mostEventsKept >= keptInMemory, sourceLocation: sourceLocation)
        #expect(disk.mostEventsKept == 100, sourceLocation: sourceLocation)
        #expect(disk.visitsSpilled == 1, sourceLocation: sourceLocation)
        #expect(disk.violations == memory.violations, sourceLocation: sourceLocation)
        try expectSameOnDisk(storage, limits: [500], filteredLimit: 10_000, sourceLocation: sourceLocation)
    }

    /// One visit of the control install where every once-only event is on a screen of its own, but every third
    /// repeats the screen before it: as many groups as events, a third of them repeated.
    static func screensStream(count: Int) -> ViolationStream {
        var stream = ViolationStream()
        let install = ViolationsCheckerTests.control
        let types = ["eligible", "anchor_visible", "exposure", "served"]
        for index in 0..<count {
            let screen = index % 3 == 2 ? index - 1 : index
            stream.add(
                types[index % 3 == 2 ? (index - 1) % 4 : index % 4], install: install, arm: "control",
                screen: ["type": "search", "id": .string("s-\(screen)")], visit: "v")
            if index % 50 == 0 { stream.add("action", install: install, visit: "v") }
        }
        return stream
    }

    @Test("every once-only event on a screen of its own: groups past the bound are found on disk")
    func screens() throws {
        try Self.expectOneVisit(
            Self.screensStream(count: 2_000), rule: .repeatedInVisit, violations: 2_000 / 3, keptInMemory: 2_000)
    }

    @Test("a repeat cut short when the visit moves to disk keeps counting: its first events listed, all counted")
    func cutRepeatMoves() throws {
        var stream = ViolationStream()
        let install = ViolationsCheckerTests.control
        let repeats = VisitLedger.listedEvents + 500
        for _ in 0..<repeats { stream.add("served", install: install, arm: "control", visit: "v") }
        // Screens of their own push the kept events past the bound; then the first group repeats again.
        for index in 0..<20 {
            stream.add(
                "eligible", install: install, arm: "control", screen: ["type": "search", "id": .string("\(index)")],
                visit: "v")
        }
        for _ in 0..<30 { stream.add("served", install: install, arm: "control", visit: "v") }
        let storage = try ViolationScanTests.store(stream, ViolationScanTests.arrivals[0])
        let memory = try Self.pages(storage, limit: 100, bound: .max)
        let disk = try Self.pages(storage, limit: 100, bound: VisitLedger.listedEvents + 5)
        #expect(disk.visitsSpilled == 1)
        #expect(disk.violations == memory.violations)
        let repeated = try #require(disk.violations.first { $0.rule == .repeatedInVisit })
        #expect(repeated.eventCount == repeats + 30)
        #expect(repeated.events == Array(1...Int64(VisitLedger.listedEvents)))
    }

    @Test("ids are compared byte for byte, as the stores order them: a precomposed é and e + U+0301 are two screens")
    func exactBytes() throws {
        var stream = ViolationStream()
        let install = ViolationsCheckerTests.control
        // Two spellings of one screen id, a screen that sorts between them, each shown twice in one visit.
        let screens = ["caf\u{E9}", "cafe\u{301}", "cafez"]
        for _ in 0..<2 {
            for screen in screens {
                stream.add(
                    "served", install: install, arm: "control", screen: ["type": "search", "id": .string(screen)],
                    visit: "v")
            }
        }
        let storage = try ViolationScanTests.store(stream, ViolationScanTests.arrivals[0])
        let memory = try Self.pages(storage, limit: 100, bound: .max)
        let disk = try Self.pages(storage, limit: 100, bound: 0)
        #expect(disk.visitsSpilled == 1)
        #expect(disk.violations == memory.violations)
        let repeats = memory.violations.filter { $0.rule == .repeatedInVisit }
        #expect(repeats.map(\.events) == [[1, 4], [2, 5], [3, 6]])
    }

    @Test("a visit whose scratch file fails is an error for the answer, never a shorter list")
    func failingFile() throws {
        let file = ExternalSortTests.FailingFile(writableBytes: 4_096)
        var spill = VisitSpill(memoryLimit: 256) { file }
        let visit = VisitKey(installID: "i", visitID: "v", placement: .homeTop, campaignID: "home-hero")
        for sequence in 1...Int64(500) {
            let ref = EventRef(sequence: sequence, eventID: "e-\(sequence)")
            spill.appendAction(visit, ref, type: .action, facts: nil)
        }
        var answered = 0
        #expect(throws: StorageError.self) {
            _ = try spill.decide(describing: true) { _, _ in
                answered += 1
                return true
            }
        }
        #expect(answered == 0)
    }
}
