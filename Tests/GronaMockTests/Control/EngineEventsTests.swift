import Foundation
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@testable import GronaMock

/// The engine's event stream (issue 29): every kind of event reaches a subscriber in the order it happened,
/// and a subscriber that does not read never slows ingestion: its queue is bounded, and it learns how many
/// events it missed.
@Suite("The engine's event stream")
struct EngineEventsTests {
    /// A short name for an event, to compare sequences.
    static func name(_ event: EngineEvent) -> String {
        switch event {
        case .eventsStored(let stored): "stored \(stored.batches.map(\.batch.accepted.count).reduce(0, +))"
        case .eventsDeleted(let workspace): "deleted \(workspace ?? "*")"
        case .workspaceChanged(let change): "changed \(change.workspaceKey) \(change.cause)"
        case .clockChanged(let state): "clock frozen=\(state.frozen)"
        case .faultFired(let firing): "fault \(firing.endpoint.rawValue)"
        case .grantsIssued(let grants): "grants \(grants.customerID) \(grants.grants.count)"
        case .configurationServed(let served): "config \(served.workspace) \(served.encoding.rawValue)"
        case .requestAnswered(let request): "request \(request.endpoint.rawValue) \(request.status)"
        }
    }

    /// Every item the subscription holds now, draining it.
    static func drain(_ subscription: EngineSubscription) -> [String] {
        var names: [String] = []
        while let item = subscription.next(timeout: .milliseconds(1)) {
            switch item {
            case .event(let event): names.append(name(event))
            case .missed(let count): names.append("missed \(count)")
            }
        }
        return names
    }

    @Test("a listener hears every event in order; a full subscription drops the oldest and says how many")
    func boundedSubscription() {
        let events = EngineEvents()
        let heard = Mutex<[String]>([])
        events.listen { event in heard.withLock { $0.append(Self.name(event)) } }
        let subscription = events.subscribe(capacity: 3)
        for index in 0..<5 { events.publish(.eventsDeleted(workspace: "w-\(index)")) }
        #expect(heard.withLock { $0 } == (0..<5).map { "deleted w-\($0)" })
        #expect(Self.drain(subscription) == ["missed 2", "deleted w-2", "deleted w-3", "deleted w-4"])
        #expect(events.subscriptionCount == 1)
        subscription.cancel()
        #expect(events.subscriptionCount == 0)
        events.publish(.eventsDeleted(workspace: "after"))
        #expect(subscription.next(timeout: .milliseconds(1)) == nil)
    }

    @Test("a subscription keeps only what it wants, and a reader on another thread gets it")
    func filteredAndWoken() async throws {
        let events = EngineEvents()
        let subscription = events.subscribe { event in
            if case .clockChanged = event { true } else { false }
        }
        let reader = Task.detached { subscription.next(timeout: .seconds(30)) }
        events.publish(.eventsDeleted(workspace: nil))
        events.publish(.clockChanged(ClockState(now: 1, offsetMilliseconds: 0, frozen: true)))
        let item = await reader.value
        guard case .event(.clockChanged(let state))? = item else {
            Issue.record("expected the clock change, got \(String(describing: item))")
            return
        }
        #expect(state.frozen)
        #expect(Self.drain(subscription).isEmpty)
    }

    @Test("a server's stream carries, in order: configurations, grants, faults, events, changes, the clock, deletes")
    func everyKindFromAServer() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let subscription = server.engine.events.subscribe()
            defer { subscription.cancel() }
            let storedBatches = Mutex(0)
            server.engine.events.listen { event in
                if case .eventsStored(let stored) = event { storedBatches.withLock { $0 += stored.batches.count } }
            }
            let port = server.port
            #expect(try fetch(port, FaultAPI.config).status == 200)
            #expect(try fetch(port, GrantsEndpointTests.request(#"{"customerID":"cust_1"}"#)).status == 200)
            _ = try FaultAPI.add(port, #"{"endpoint":"config","kind":"status","status":503,"count":1}"#)
            #expect(try fetch(port, FaultAPI.config).status == 503)
            let posted = try EventsAPI.post(port, events: [SampleEvents.placementEvent("exposure", id: "e-1")])
            #expect(posted.status == 200)
            // A commit is published after its answers are sent: the kill must come after it on the stream.
            #expect(eventually { storedBatches.withLock { $0 } == 1 })
            #expect(
                try fetch(port, Control.request("POST", "/_mock/workspaces/shop/campaigns/home-hero/kill")).status
                    == 200)
            #expect(try fetch(port, Control.request("POST", "/_mock/clock", body: #"{"freeze":true}"#)).status == 200)
            #expect(try fetch(port, Control.request("DELETE", "/_mock/events?workspace=shop")).status == 200)
            let names = Self.drain(subscription)
            #expect(
                names == [
                    "config shop identity", "grants cust_1 1", "fault config", "stored 1",
                    "changed shop killed(campaign: \"home-hero\")", "clock frozen=true", "deleted shop",
                ], "\(names)")
        }
    }

    @Test("a subscriber that never reads does not slow ingestion: every batch is stored, and it is told it missed")
    func slowSubscriber() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let subscription = server.engine.events.subscribe(capacity: 8)
            defer { subscription.cancel() }
            let storedBatches = Mutex(0)
            server.engine.events.listen { event in
                if case .eventsStored(let stored) = event { storedBatches.withLock { $0 += stored.batches.count } }
            }
            for batch in 0..<40 {
                let events = (0..<25).map { SampleEvents.placementEvent("exposure", id: "e-\(batch)-\($0)") }
                let posted = try EventsAPI.post(server.port, events: events, installID: "install-\(batch)")
                #expect(posted.status == 200)
                #expect(posted.body["accepted"] == 25)
            }
            var filter = EventFilter()
            filter.workspace = "shop"
            #expect(try server.events.count(filter) == 1000)
            // A commit is published after its answers are sent: wait until the last one is, then read.
            #expect(eventually { storedBatches.withLock { $0 } == 40 })
            let names = Self.drain(subscription)
            #expect(names.count == 9, "\(names)")
            #expect(names.first?.hasPrefix("missed ") == true, "\(names)")
        }
    }

    @Test("requests to the Grona endpoints are published, faulted ones too, only while a subscriber wants them")
    func answeredRequests() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let port = server.port
            let quiet = server.engine.events.subscribe()
            defer { quiet.cancel() }
            #expect(!server.engine.events.requestsWanted)
            #expect(try fetch(port, FaultAPI.config).status == 200)
            #expect(Self.drain(quiet) == ["config shop identity"])

            let answers = Mutex<[AnsweredRequest]>([])
            let recording = server.engine.events.subscribe(requests: true)
            #expect(server.engine.events.requestsWanted)
            let conditional = "GET \(FaultAPI.configTarget) HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n"
            let first = try fetch(port, conditional + "\r\n")
            let etag = try #require(first.header("ETag"))
            #expect(try fetch(port, conditional + "If-None-Match: \(etag)\r\n\r\n").status == 304)
            _ = try FaultAPI.add(
                port, #"{"endpoint":"events","kind":"status","status":429,"retryAfterSeconds":5,"count":1}"#)
            #expect(
                try EventsAPI.post(port, events: [SampleEvents.placementEvent("exposure", id: "e-1")]).status == 429)
            let posted = try EventsAPI.post(
                port, events: [SampleEvents.placementEvent("exposure", id: "e-1"), ["eventID": "bad"]])
            #expect(posted.status == 200)
            while let item = recording.next(timeout: .milliseconds(1)) {
                if case .event(.requestAnswered(let request)) = item { answers.withLock { $0.append(request) } }
            }
            let heard = answers.withLock { $0 }
            #expect(
                heard.map { "\($0.endpoint.rawValue) \($0.status)" } == [
                    "config 200", "config 304", "events 429", "events 200",
                ])
            // A rule of every workspace answers before the endpoint reads the batch: its workspace is not known.
            #expect(heard.map(\.workspace) == ["shop", "shop", nil, "shop"])
            #expect(heard[0].header("Accept-Encoding") == "gzip" && heard[0].etag == etag)
            #expect(heard[1].header("If-None-Match") == etag)
            if case .configuration(let revision, let tampered)? = heard[1].detail {
                #expect(revision >= 1 && !tampered)
            } else {
                Issue.record("the 304 has no configuration detail: \(String(describing: heard[1].detail))")
            }
            #expect(heard[2].retryAfterSeconds == 5)
            guard case .events(let batch)? = heard[3].detail else {
                Issue.record("the batch has no detail")
                return
            }
            #expect(batch.events.map { $0["eventID"]?.stringValue } == ["e-1", "bad"])
            #expect(batch.rejectedIndexes == [1] && batch.accepted == 1 && batch.duplicates == 0)
            recording.cancel()
            #expect(!server.engine.events.requestsWanted)
        }
    }
}
