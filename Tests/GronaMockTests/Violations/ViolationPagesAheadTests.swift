import Dispatch
import GronaMock
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@testable import GronaMock

/// The next violations page, checked while the client reads the last (`ViolationPagesAhead`): served only for
/// exactly its query, never once what the check reads has changed, and never more than a few pages held.
@Suite("Violations pages made ahead")
struct ViolationPagesAheadTests {
    static func report(_ checkedEvents: Int) -> ViolationReport {
        ViolationReport(
            workspaceKey: "shop", violations: [], counts: [:], checkedEvents: checkedEvents, next: nil, rowsRead: 0)
    }

    static func key(_ workspace: String = "shop", limit: Int = 7, skip: Int = 0) -> ViolationPagesAhead.Key {
        var query = ViolationQuery()
        query.limit = limit
        query.cursor = ViolationCursor(
            throughSequence: 100, position: EventScanPosition(installID: "i-1", visitID: "v-1", sequence: 4),
            skip: skip)
        return ViolationPagesAhead.Key(workspace: workspace, query: query)
    }

    @Test("a page made ahead is taken once, and only by exactly its query")
    func takenOnceByItsQuery() {
        let ahead = ViolationPagesAhead()
        ahead.prepare(Self.key()) { Self.report(42) }
        #expect(ahead.take(Self.key(limit: 8)) == nil)
        #expect(ahead.take(Self.key(skip: 1)) == nil)
        #expect(ahead.take(Self.key("other")) == nil)
        #expect(ahead.take(Self.key())?.checkedEvents == 42)
        #expect(ahead.take(Self.key()) == nil)
        #expect(ahead.count == 0)
    }

    @Test("a change to its workspace while a page is being made throws the page away; another's does not")
    func changeWhileMaking() {
        let ahead = ViolationPagesAhead()
        let release = DispatchSemaphore(value: 0)
        ahead.prepare(Self.key()) {
            release.wait()
            return Self.report(1)
        }
        ahead.prepare(Self.key("other")) {
            release.wait()
            return Self.report(2)
        }
        ahead.invalidate(workspace: "shop")
        release.signal()
        release.signal()
        #expect(ahead.take(Self.key()) == nil)
        #expect(ahead.take(Self.key("other"))?.checkedEvents == 2)
    }

    @Test("a made page is dropped by a change to its workspace, or by any when the change names none")
    func changeAfterMade() {
        let ahead = ViolationPagesAhead()
        ahead.prepare(Self.key()) { Self.report(1) }
        ahead.prepare(Self.key("other")) { Self.report(2) }
        #expect(eventually { ahead.take(Self.key("none")) == nil && ahead.readyCount == 2 })
        ahead.invalidate(workspace: "shop")
        #expect(ahead.take(Self.key()) == nil)
        ahead.invalidate(workspace: nil)
        #expect(ahead.take(Self.key("other")) == nil)
        #expect(ahead.count == 0)
    }

    @Test("at most `capacity` pages are held, a failed check is not kept, and an expired page is not served")
    func bounded() {
        let ahead = ViolationPagesAhead(capacity: 2)
        for skip in 0..<5 { ahead.prepare(Self.key(skip: skip)) { Self.report(skip) } }
        #expect(ahead.count == 2)
        #expect(ahead.take(Self.key(skip: 2)) == nil)
        #expect(ahead.take(Self.key(skip: 0))?.checkedEvents == 0)

        struct Failed: Error {}
        let failing = ViolationPagesAhead()
        failing.prepare(Self.key()) { throw Failed() }
        #expect(failing.take(Self.key()) == nil)
        #expect(failing.count == 0)

        // Every page is past a lifetime below zero as soon as it is made.
        // It goes by itself, without another request to notice it.
        let expiring = ViolationPagesAhead(lifetime: .nanoseconds(-1))
        expiring.prepare(Self.key()) { Self.report(1) }
        #expect(eventually { expiring.count == 0 })
        expiring.prepare(Self.key(skip: 1)) { Self.report(1) }
        #expect(expiring.take(Self.key(skip: 1)) == nil)
    }

    /// Page `index` of a run from `key()`: its `checkedEvents` is its index, and its `next` the key of the page
    /// after it (`key(skip: index + 1)`), up to `last`.
    static func runPage(_ index: Int, last: Int = .max) -> ViolationReport {
        ViolationReport(
            workspaceKey: "shop", violations: [], counts: [:], checkedEvents: index,
            next: index < last ? key(skip: index + 1).query.cursor : nil, rowsRead: 0)
    }

    @Test("a run makes the pages after its first in one go, each taken by exactly its cursor, in order")
    func runTakenInOrder() {
        let ahead = ViolationPagesAhead(capacity: 8, runAhead: 8)
        ahead.prepare(Self.key()) { deliver in
            var index = 0
            while deliver(Self.runPage(index, last: 5)) { index += 1 }
        }
        for index in 0...5 { #expect(ahead.take(Self.key(skip: index))?.checkedEvents == index) }
        #expect(ahead.take(Self.key(skip: 6)) == nil)
        #expect(eventually { ahead.count == 0 && ahead.runs == 0 })
    }

    @Test("a run ends once `runAhead` pages wait untaken for `pause` (a client that stopped following)")
    func runStopsAhead() {
        let ahead = ViolationPagesAhead(capacity: 8, runAhead: 3, pause: .milliseconds(50))
        let made = Atomic<Int>(0)
        ahead.prepare(Self.key()) { deliver in
            var index = 0
            while deliver(Self.runPage(index)) {
                made.add(1, ordering: .relaxed)
                index += 1
            }
            made.add(1, ordering: .relaxed)
        }
        #expect(eventually { ahead.runs == 0 })
        #expect(made.load(ordering: .relaxed) == 3)
        #expect(ahead.readyCount == 3)
        // Taken, they make room; the request for the page after them starts the next run from there.
        for index in 0..<3 { #expect(ahead.take(Self.key(skip: index))?.checkedEvents == index) }
        #expect(ahead.count == 0)
    }

    @Test("a run whose client lags pauses once `runAhead` pages wait, and goes on from where it was as they are taken")
    func runPausesAndGoesOn() {
        let ahead = ViolationPagesAhead(capacity: 8, runAhead: 3, pause: .seconds(600))
        let started = Atomic<Int>(0)
        ahead.prepare(Self.key()) { deliver in
            started.add(1, ordering: .relaxed)
            var index = 0
            while deliver(Self.runPage(index, last: 9)) { index += 1 }
        }
        #expect(eventually { ahead.pausedRuns == 1 && ahead.readyCount == 3 })
        for index in 0...9 {
            // A page the run goes on to once one is taken: a following client's request finds it marked.
            #expect(eventually { ahead.holds(Self.key(skip: index)) }, "page \(index)")
            #expect(ahead.take(Self.key(skip: index))?.checkedEvents == index)
        }
        #expect(started.load(ordering: .relaxed) == 1, "one run, one scan, made every page")
        #expect(eventually { ahead.runs == 0 && ahead.count == 0 && ahead.pausedRuns == 0 })
    }

    /// A run of endless pages, paused (for ever, unless woken) once `runAhead` (3) wait.
    static func pausedRun() -> ViolationPagesAhead {
        let ahead = ViolationPagesAhead(capacity: 8, runAhead: 3, pause: .seconds(600))
        ahead.prepare(Self.key()) { deliver in
            var index = 0
            while deliver(Self.runPage(index)) { index += 1 }
        }
        #expect(eventually { ahead.pausedRuns == 1 && ahead.readyCount == 3 })
        return ahead
    }

    @Test("a paused run ends at once when its workspace changes, and serves nothing it would have made")
    func pausedRunEndedByChange() {
        let ahead = Self.pausedRun()
        ahead.invalidate(workspace: "other")
        #expect(ahead.take(Self.key(skip: 0))?.checkedEvents == 0, "another workspace's change leaves it")
        ahead.invalidate(workspace: "shop")
        #expect(eventually { ahead.runs == 0 && ahead.pausedRuns == 0 })
        #expect(ahead.count == 0)
        for index in 1...4 { #expect(ahead.take(Self.key(skip: index)) == nil) }
    }

    @Test("`stop` ends a paused run at once, without waiting out its pause")
    func pausedRunEndedByStop() {
        let ahead = Self.pausedRun()
        let returned = Atomic<Bool>(false)
        DispatchQueue.global().async {
            ahead.stop()
            returned.store(true, ordering: .relaxed)
        }
        #expect(eventually { returned.load(ordering: .relaxed) })
        #expect(ahead.runs == 0 && ahead.pausedRuns == 0)
    }

    @Test("a change to its workspace while a run makes a page drops the page and ends the run")
    func runEndedByChange() {
        let ahead = ViolationPagesAhead(capacity: 8, runAhead: 8)
        let second = DispatchSemaphore(value: 0)
        let changed = DispatchSemaphore(value: 0)
        let delivered = Atomic<Int>(0)
        ahead.prepare(Self.key()) { deliver in
            guard deliver(Self.runPage(0)) else { return }
            delivered.add(1, ordering: .relaxed)
            second.signal()
            changed.wait()
            if deliver(Self.runPage(1)) { delivered.add(1, ordering: .relaxed) }
            // Told to stop: a run that delivers again anyway is not heard.
            _ = deliver(Self.runPage(2))
        }
        second.wait()
        ahead.invalidate(workspace: "shop")
        changed.signal()
        #expect(ahead.take(Self.key(skip: 1)) == nil)
        #expect(ahead.take(Self.key(skip: 0)) == nil)
        #expect(ahead.take(Self.key(skip: 2)) == nil)
        #expect(eventually { ahead.runs == 0 })
        #expect(delivered.load(ordering: .relaxed) == 1)
        #expect(ahead.count == 0)
    }

    @Test("stopped: no run starts, and `stop` returns once the runs under way ended")
    func stopped() {
        let ahead = ViolationPagesAhead(capacity: 8, runAhead: 8)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ended = Atomic<Bool>(false)
        ahead.prepare(Self.key()) { deliver in
            _ = deliver(Self.runPage(0))
            started.signal()
            // Held until after `stop` was called: `stop` must wait for it.
            release.wait()
            var index = 1
            while deliver(Self.runPage(index)) { index += 1 }
            ended.store(true, ordering: .relaxed)
        }
        started.wait()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { release.signal() }
        ahead.stop()
        let endedBeforeStopReturned = ended.load(ordering: .relaxed)
        #expect(endedBeforeStopReturned)
        #expect(ahead.runs == 0)
        #expect(ahead.count == 0)
        ahead.prepare(Self.key("other")) { Self.report(1) }
        #expect(ahead.count == 0)
    }

    @Test("at most `maxRuns` runs at once; a failed run leaves its page to the caller")
    func runsBounded() {
        let ahead = ViolationPagesAhead(capacity: 8, runAhead: 8, maxRuns: 1)
        let release = DispatchSemaphore(value: 0)
        ahead.prepare(Self.key()) { deliver in
            release.wait()
            _ = deliver(Self.report(1))
        }
        ahead.prepare(Self.key("other")) { Self.report(2) }
        #expect(ahead.count == 1)
        release.signal()
        #expect(ahead.take(Self.key())?.checkedEvents == 1)

        // The first run ends after it filed its page: only then may another start.
        #expect(eventually { ahead.runs == 0 })
        struct Failed: Error {}
        ahead.prepare(Self.key()) { deliver in
            _ = deliver(Self.runPage(0))
            throw Failed()
        }
        #expect(ahead.take(Self.key())?.checkedEvents == 0)
        #expect(ahead.take(Self.key(skip: 1)) == nil)
        #expect(eventually { ahead.runs == 0 && ahead.count == 0 })
    }

    /// A workspace where every visit repeats an event: one violation a visit.
    static func denseStream(visits: Int) -> ViolationStream {
        let banner = ViolationUnits.install(banner: true)
        var stream = ViolationStream()
        for index in 0..<visits {
            stream.add("eligible", install: banner, visit: "v-\(index)")
            stream.add("eligible", install: banner, visit: "v-\(index)")
        }
        return stream
    }

    /// Follows every page of `limit` through the server; the violations in page order, and the pages.
    static func follow(_ port: Int, limit: Int, stopAfter: Int = .max) throws -> (
        violations: [JSONValue], cursors: [String]
    ) {
        var violations: [JSONValue] = []
        var cursors: [String] = []
        var cursor: String?
        repeat {
            var target = "/_mock/events/violations?workspace=shop&limit=\(limit)"
            if let cursor { target += "&cursor=\(cursor)" }
            let (status, body) = try EventsAPI.json(port, target)
            #expect(status == 200, "\(body)")
            violations += body["violations"]?.arrayValue ?? []
            cursor = body["nextCursor"]?.stringValue
            if let cursor { cursors.append(cursor) }
        } while cursor != nil && cursors.count < stopAfter
        return (violations, cursors)
    }

    @Test("following the pages of a dense workspace: the pages made ahead are served, and add up to the unpaged answer")
    func followingPages() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            try ViolationsEndpointTests.send(Self.denseStream(visits: 120), port: server.port)
            let (paged, cursors) = try Self.follow(server.port, limit: 7)
            #expect(cursors.count == 17)
            // The first page asks with no cursor, and is checked alone; every later one is taken from a run.
            #expect(server.engine.pagesAhead.taken.load(ordering: .relaxed) == 17)
            let (_, unpaged) = try ViolationsEndpointTests.violations(server.port)
            let all = unpaged["violations"]?.arrayValue ?? []
            #expect(all.count == 120)
            let key = { (violation: JSONValue) in violation["events"]?[0]?.int64Value ?? -1 }
            #expect(paged.sorted { key($0) < key($1) } == all)
        }
    }

    @Test("one visit with every event, its pages followed by a client slower than the check: one run makes them all")
    func oneHugeVisit() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            // Every event of one visit breaks a rule of its own (an action with no served): 300 violations.
            var stream = ViolationStream()
            let banner = ViolationUnits.install(banner: true)
            for _ in 0..<300 { stream.add("action", install: banner, visit: "v-1") }
            try ViolationsEndpointTests.send(stream, port: server.port)
            let engine = server.engine
            var query = ViolationQuery()
            query.limit = 7
            var report = try engine.violations("shop", query: query)
            var found = report.violations.count
            var pages = 1
            while let next = report.next {
                query.cursor = next
                // Lagging: from the third page on, the run has made its pages ahead and waits for one to be taken
                // (or has made the last and ended).
                if pages >= 2 {
                    let ahead = engine.pagesAhead
                    #expect(eventually { ahead.readyCount == ViolationPagesAhead.standardRunAhead || ahead.runs == 0 })
                }
                report = try engine.violations("shop", query: query)
                found += report.violations.count
                pages += 1
            }
            #expect(found == 300 && pages == 43)
            // Ended, each new run would have judged the visit again from its first event.
            #expect(engine.pagesAhead.started.load(ordering: .relaxed) == 1)
            #expect(engine.pagesAhead.taken.load(ordering: .relaxed) == pages - 1, "all but the first")
        }
    }

    @Test("events deleted between two pages: the next page is checked again, not served from before the delete")
    func deletedBetweenPages() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            try ViolationsEndpointTests.send(Self.denseStream(visits: 60), port: server.port)
            // The first page, then the second with its cursor: a run makes it and goes on to the third and the
            // next, until as many wait untaken as a run makes ahead.
            let (_, cursors) = try Self.follow(server.port, limit: 7, stopAfter: 2)
            #expect(eventually { server.engine.pagesAhead.readyCount == ViolationPagesAhead.standardRunAhead })
            let takenBefore = server.engine.pagesAhead.taken.load(ordering: .relaxed)
            let startedBefore = server.engine.pagesAhead.started.load(ordering: .relaxed)
            let deleted = try fetch(server.port, Control.request("DELETE", "/_mock/events?workspace=shop"))
            #expect(deleted.status == 200)
            let (status, body) = try EventsAPI.json(
                server.port, "/_mock/events/violations?workspace=shop&limit=7&cursor=\(cursors[1])")
            #expect(status == 200)
            #expect(body["violations"] == [])
            // The page came from a run started after the delete, not from the pages made before it.
            #expect(server.engine.pagesAhead.started.load(ordering: .relaxed) == startedBefore + 1)
            #expect(server.engine.pagesAhead.taken.load(ordering: .relaxed) == takenBefore + 1)
        }
    }
}
