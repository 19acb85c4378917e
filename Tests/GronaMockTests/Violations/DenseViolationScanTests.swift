import GronaMock
import GronaMockJSON
import GronaMockSQLite
import Testing

@testable import GronaMock

/// The shapes a broken SDK produces (issue 32): every visit violating, one visit id for every install, one
/// install with every event. Paged through, the violations are exactly the one-call checker's, and the work is
/// linear: the rows read over all pages stay within the events plus a bounded read-ahead and one re-read visit
/// per page, and the scan holds one visit's events at a time. Counted, not timed.
@Suite("Violations of a dense workspace, paged in linear work")
struct DenseViolationScanTests {
    struct Shape: Sendable, CustomTestStringConvertible {
        var name: String
        var installs: Int
        var visitsPerInstall: Int
        /// The visit id of visit `v` of install `i`.
        var visitID: @Sendable (_ install: Int, _ visit: Int) -> String
        var testDescription: String { name }
    }

    /// Five `served` a visit, as a broken SDK that logs on every render sends them: every visit a repeat.
    static let servedPerVisit = 5

    static let shapes: [Shape] = [
        Shape(name: "every visit violating", installs: 40, visitsPerInstall: 5) { _, visit in "v-\(visit)" },
        Shape(name: "one visit id for every install", installs: 200, visitsPerInstall: 1) { _, _ in "v" },
        Shape(name: "one install with every event", installs: 1, visitsPerInstall: 200) { _, visit in "v-\(visit)" },
    ]

    static func stream(_ shape: Shape) -> ViolationStream {
        var stream = ViolationStream()
        let banner = ViolationsCheckerTests.banner
        for install in 0..<shape.installs {
            // One install is the assigned one, whatever the shape; the others break assignment too.
            let installID = shape.installs == 1 ? banner : "\(banner)-\(install)"
            for visit in 0..<shape.visitsPerInstall {
                for _ in 0..<servedPerVisit {
                    stream.add("served", install: installID, visit: shape.visitID(install, visit))
                }
            }
        }
        return stream
    }

    struct Pages {
        var violations: [Violation] = []
        var pages = 0
        var rowsRead = 0
        var mostEventsHeld = 0
    }

    /// Every page with `limit`, through the cursor's text as a client sends it back.
    static func follow(_ storage: SQLiteStorage, limit: Int) throws -> Pages {
        var query = ViolationQuery()
        query.limit = limit
        var pages = Pages()
        let last = try storage.lastSequence()
        repeat {
            let outcome = try ViolationScan(storage: storage, workspace: "shop", query: query).run(
                try ViolationScanTests.checker(), throughSequence: last)
            pages.violations += outcome.violations
            pages.pages += 1
            pages.rowsRead += outcome.rowsRead
            pages.mostEventsHeld = max(pages.mostEventsHeld, outcome.mostEventsHeld)
            query.cursor = outcome.next.flatMap { ViolationCursor(text: $0.text) }
        } while query.cursor != nil && pages.pages < 100_000
        return pages
    }

    /// Every page of one run (one scan that hands each page over and goes on), the last included.
    static func runOfPages(
        _ storage: SQLiteStorage, query: ViolationQuery, last: Int64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [ViolationScan.Outcome] {
        var pages: [ViolationScan.Outcome] = []
        let end = try ViolationScan(storage: storage, workspace: "shop", query: query).run(
            try ViolationScanTests.checker(), throughSequence: last
        ) { page in
            pages.append(page)
            return true
        }
        #expect(end.next == nil, sourceLocation: sourceLocation)
        pages.append(end)
        return pages
    }

    /// Asks each page of a run again, alone, from the cursor the page before it gave, and expects the same
    /// violations, `next` and checked events; `asking` picks the pages asked again (all by default).
    static func expectPagesAnsweredAlone(
        _ pages: [ViolationScan.Outcome], storage: SQLiteStorage, query: ViolationQuery, last: Int64,
        asking: (Int) -> Bool = { _ in true }, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var cursor: ViolationCursor?
        for (index, page) in pages.enumerated() {
            defer { cursor = page.next }
            guard asking(index) else { continue }
            var alone = query
            alone.cursor = cursor.flatMap { ViolationCursor(text: $0.text) }
            let expected = try ViolationScan(storage: storage, workspace: "shop", query: alone).run(
                try ViolationScanTests.checker(), throughSequence: last)
            let label: Comment = "limit \(query.limit), page \(index)"
            #expect(page.violations == expected.violations, label, sourceLocation: sourceLocation)
            #expect(page.next == expected.next, label, sourceLocation: sourceLocation)
            #expect(page.checkedEvents == expected.checkedEvents, label, sourceLocation: sourceLocation)
        }
    }

    @Test("every page followed: the checker's violations, in linear work and one visit held", arguments: shapes)
    func linear(_ shape: Shape) throws {
        let stream = Self.stream(shape)
        let storage = try ViolationScanTests.store(stream, ViolationScanTests.arrivals[2])
        let events = stream.sent.count
        let expected = try ViolationScanTests.reference(storage, try ViolationScanTests.checker())
        // Every visit has its repeat.
        #expect(
            expected.filter { $0.rule == .repeatedInVisit }.count == shape.installs * shape.visitsPerInstall)
        for limit in [1, 7, 1_000] {
            let found = try Self.follow(storage, limit: limit)
            #expect(found.violations.map(\.description).sorted() == expected.map(\.description).sorted())
            #expect(found.pages == max(1, (expected.count + limit - 1) / limit), "limit \(limit)")
            #expect(found.mostEventsHeld == Self.servedPerVisit, "limit \(limit)")
            // Each page reads its own events, the visit it resumes in again, and what was read ahead of its end.
            let bound = events + found.pages * (PrefetchingScan.maxReadAhead + found.mostEventsHeld)
            #expect(found.rowsRead <= bound, "limit \(limit): \(found.rowsRead) rows read for \(events) events")
            #expect(found.rowsRead >= events, "limit \(limit)")
        }
    }

    @Test("a run of pages in one scan is, page by page, what requests with each cursor answer", arguments: shapes)
    func runOfPages(_ shape: Shape) throws {
        let stream = Self.stream(shape)
        let storage = try ViolationScanTests.store(stream, ViolationScanTests.arrivals[1])
        let last = try storage.lastSequence()
        for limit in [1, 7, 1_000] {
            var query = ViolationQuery()
            query.limit = limit
            let pages = try Self.runOfPages(storage, query: query, last: last)
            #expect(pages.map(\.rowsRead).reduce(0, +) <= stream.sent.count + PrefetchingScan.maxReadAhead)
            try Self.expectPagesAnsweredAlone(pages, storage: storage, query: query, last: last)
        }
    }

    @Test("a run told to stop ends at that page: what it returns is that page, its cursor set")
    func runStopped() throws {
        let stream = Self.stream(Self.shapes[0])
        let storage = try ViolationScanTests.store(stream, ViolationScanTests.arrivals[0])
        var query = ViolationQuery()
        query.limit = 7
        var pages = 0
        let end = try ViolationScan(storage: storage, workspace: "shop", query: query).run(
            try ViolationScanTests.checker(), throughSequence: try storage.lastSequence()
        ) { _ in
            pages += 1
            return pages < 3
        }
        #expect(pages == 3)
        #expect(end.violations.count == 7)
        #expect(end.next != nil)
        #expect(end.rowsRead < stream.sent.count / 2)
    }

    @Test("one install with every event: a page resumed deep inside it is a seek, not a walk from its first row")
    func resumedInsideOneInstall() throws {
        let shape = Shape(name: "one install", installs: 1, visitsPerInstall: 600) { _, visit in "v-\(visit)" }
        let stream = Self.stream(shape)
        let storage = try ViolationScanTests.store(stream, ViolationScanTests.arrivals[0])
        let events = stream.sent.count
        // What one statement's steps cost a row here: one scan of every row, unpaged.
        let before = storage.scanSteps.load(ordering: .relaxed)
        _ = try ViolationScan(storage: storage, workspace: "shop", query: ViolationQuery()).run(
            try ViolationScanTests.checker(), throughSequence: try storage.lastSequence())
        let perRow = Double(storage.scanSteps.load(ordering: .relaxed) - before) / Double(events)
        let start = storage.scanSteps.load(ordering: .relaxed)
        let found = try Self.follow(storage, limit: 10)
        let steps = storage.scanSteps.load(ordering: .relaxed) - start
        #expect(found.pages == 60)
        // Linear: the rows each page reads (its own, the visit it resumes in, its read-ahead), never the rows of
        // the install before its start (walking those took 3.3 million steps in this shape, four times the
        // bound); a quarter more, and a few hundred steps a statement, for what a seek and a statement cost.
        let rows = events + found.pages * (PrefetchingScan.maxReadAhead + found.mostEventsHeld)
        let bound = Int(perRow * Double(rows) * 1.25) + found.pages * 500
        #expect(steps <= bound, "\(steps) steps for \(found.pages) pages, bound \(bound)")
    }

    @Test("the body written straight is the tree serialized: paged, unpaged and summary")
    func encoding() throws {
        let storage = try ViolationScanTests.store(ViolationScanTests.brokenStream(), ViolationScanTests.arrivals[0])
        let last = try storage.lastSequence()
        var queries: [ViolationQuery] = [ViolationQuery()]
        var paged = ViolationQuery()
        paged.limit = 3
        queries.append(paged)
        var summary = ViolationQuery()
        summary.summary = true
        queries.append(summary)
        for query in queries {
            let outcome = try ViolationScan(storage: storage, workspace: "shop", query: query).run(
                try ViolationScanTests.checker(), throughSequence: last)
            let report = ViolationReport(
                workspaceKey: "shop \"quoted\"", violations: outcome.violations, counts: outcome.counts,
                checkedEvents: outcome.checkedEvents, next: outcome.next, rowsRead: outcome.rowsRead)
            #expect(!outcome.violations.isEmpty || query.summary)
            #expect(report.encoded(query) == report.json(query).serialized())
        }
    }

    @Test("a sentence kept as its parts reads as its message, and writes as that message escaped whole")
    func sentences() {
        let awkward = [
            "spring", "", "quote \" and \\ backslash", "tab\tnew\nline\u{01}", "é ü 中文 🎉",
            String(repeating: "long-", count: 30),
        ]
        var violations: [Violation] = []
        for (index, text) in awkward.enumerated() {
            let events = Array(Int64(index + 1)...Int64(index + 3))
            // The last group lists only some of its events (`VisitLedger.listedEvents`).
            let count = index == awkward.count - 1 ? 2_000 : events.count
            violations.append(
                Violation(
                    rule: .repeatedInVisit, events: events, eventIDs: events.map { "e\($0)" }, eventCount: count,
                    sentence: .repeatedInVisit(
                        type: index == 2 ? .unknown(text) : .served, campaignID: text, visitID: "v-\(text)",
                        placement: index == 3 ? Placement(rawValue: text) : .homeTop, screen: text,
                        key: index % 2 == 0 ? nil : text)))
            violations.append(
                Violation(
                    rule: .shownInControlOrHoldout, events: [Int64(index + 1)], eventIDs: ["e"],
                    sentence: .shownInArm(
                        type: index == 1 ? .exposure : .unknown(text), arm: index == 4 ? Arm(rawValue: text) : .control)
                ))
            violations.append(
                Violation(
                    rule: .offerWithoutGrant, events: [Int64(index + 1)], eventIDs: ["e"],
                    sentence: .offerShownWithoutGrant(
                        type: .served, campaignID: text, variantID: "v/\(text)", customerID: index == 0 ? nil : text)))
        }
        // Actions without a served, after the others so that the indices below stay as they were.
        for (index, text) in awkward.enumerated() {
            let type: EventType = index == 2 ? .unknown(text) : index % 2 == 0 ? .action : .dismiss
            let placement: Placement = index == 3 ? Placement(rawValue: text) : .cartTop
            let violation = Violation(
                rule: .actionWithoutServed, events: [Int64(index + 40)], eventIDs: ["e"],
                sentence: .actionWithoutServed(
                    type: type, campaignID: text, visitID: "v-\(text)", placement: placement))
            // The wording, as the rule wrote it before it was kept in parts.
            #expect(
                violation.message
                    == "\(CheckedEvent.article(type.rawValue)) \(type) (sequence \(index + 40)) for campaign "
                    + "\(Quote.text(text)) in visit \(Quote.text("v-\(text)")) on \(placement), which has no served "
                    + "event.")
            violations.append(violation)
        }
        for violation in violations {
            let report = ViolationReport(
                workspaceKey: "shop", violations: [violation], counts: [:], checkedEvents: 1, next: nil, rowsRead: 1)
            #expect(report.encoded(ViolationQuery()) == report.json(ViolationQuery()).serialized())
            let copy = Violation(
                rule: violation.rule, events: violation.events, eventIDs: violation.eventIDs,
                eventCount: violation.eventCount, sentence: .text(violation.message))
            #expect(copy == violation)
        }
        // A group listed in part says how many events it has, in its JSON and its sentence.
        let cut = violations[15]
        #expect(cut.isCut && !violations[0].isCut)
        #expect(cut.json["eventCount"] == .number(2_000) && violations[0].json["eventCount"] == nil)
        #expect(cut.message.hasPrefix("2000 served events (sequences 6, 7, 8 and 1997 more) for campaign "))
        // The wording, as the rules wrote it before it was kept in parts.
        #expect(
            violations[0].message
                == #"3 served events (sequences 1, 2, 3) for campaign "spring" in visit "v-spring" (home_top on "#
                + "spring); the SDK logs served at most once per visit.")
        #expect(
            violations[4].message
                == "An exposure (sequence 2) in the control arm, where nothing is shown.")
        #expect(violations[6].message.contains(#"campaign "quote \" and \\ backslash""#))
        #expect(
            violations[2].message
                == #"A served (sequence 1) of offer "spring"/"v/spring" but names no customer, and grants are "#
                + "issued to customers.")
        #expect(
            violations[5].message
                == #"A served (sequence 2) of offer ""/"v/", but no grant for it was issued to customer ""."#)
        var renamed = violations[1]
        renamed.message = "other"
        #expect(renamed.message == "other" && renamed != violations[1])
    }

    @Test(
        "the unpaged answer from its spool, in memory or spilled to a file, is the report's bytes",
        arguments: [
            ViolationSpool.standardMemoryLimit, 512,
        ])
    func unpagedFromSpool(_ memoryLimit: Int) throws {
        let storage = try ViolationScanTests.store(Self.stream(Self.shapes[0]), ViolationScanTests.arrivals[1])
        let last = try storage.lastSequence()
        let query = ViolationQuery()
        let listed = try ViolationScan(storage: storage, workspace: "shop", query: query).run(
            try ViolationScanTests.checker(), throughSequence: last)
        let sorted = listed.violations.sorted { ($0.events.first ?? 0, $0.rule) < ($1.events.first ?? 0, $1.rule) }
        let report = ViolationReport(
            workspaceKey: "shop", violations: sorted, counts: [:], checkedEvents: listed.checkedEvents,
            next: nil, rowsRead: listed.rowsRead)
        var scan = ViolationScan(storage: storage, workspace: "shop", query: query)
        scan.spools = true
        scan.spoolMemoryLimit = memoryLimit
        var outcome = try scan.run(try ViolationScanTests.checker(), throughSequence: last)
        #expect(outcome.violations.isEmpty)
        #expect(outcome.spool.count == sorted.count)
        #expect(outcome.spool.isSpilled == (memoryLimit == 512))
        outcome.spool.sort()
        var body = UnpagedViolationsBody(workspaceKey: "shop", outcome: outcome)
        var bytes: [UInt8] = []
        var pieces = 0
        while let piece = try body.next() {
            bytes += piece
            pieces += 1
        }
        #expect(pieces >= 1)
        #expect(bytes == report.encoded(query))
    }
}

@Suite("Quoting a value for a message")
struct QuoteTests {
    @Test("the short path for plain ASCII gives what JSON quoting gives, whatever the text")
    func sameAsJSON() {
        let samples = [
            "", "home-hero", "16936d43-2065-v1", "say \"hi\"", "back\\slash", "tab\there", "del\u{7F}", "café",
            "line\u{2028}sep", String(repeating: "a", count: 80), String(repeating: "a", count: 81),
            String(repeating: "é", count: 50),
        ]
        for text in samples {
            let long = text.count > 80
            let expected = long ? JSONText.quoted(text.prefix(77) + "...") : JSONText.quoted(text)
            #expect(Quote.text(text) == expected, "\(text)")
        }
    }
}
