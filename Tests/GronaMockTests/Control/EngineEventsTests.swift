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
            let port = server.port
            #expect(try fetch(port, FaultAPI.config).status == 200)
            #expect(try fetch(port, GrantsEndpointTests.request(#"{"customerID":"cust_1"}"#)).status == 200)
            _ = try FaultAPI.add(port, #"{"endpoint":"config","kind":"status","status":503,"count":1}"#)
            #expect(try fetch(port, FaultAPI.config).status == 503)
            let posted = try EventsAPI.post(port, events: [SampleEvents.placementEvent("exposure", id: "e-1")])
            #expect(posted.status == 200)
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
}
