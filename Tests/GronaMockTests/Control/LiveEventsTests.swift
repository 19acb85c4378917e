import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// `GET /_mock/events/live`, the dashboard's stream of events (docs/dashboard.md): backlog from a cursor, then
/// live; heartbeats; a gap for a viewer left behind; a viewer that leaves is freed; a bounded number of
/// viewers; the admin token; and no blocking-pool thread held by a viewer.
@Suite("GET /_mock/events/live")
struct LiveEventsTests {
    static let token = "live-t0ken"

    static func withServer<T>(
        _ live: GronaMockConfiguration.Live = .init(heartbeat: .milliseconds(50)), token: String? = nil,
        _ body: (GronaMockServer) throws -> T
    ) throws -> T {
        try MockFixture.standard().withServer(
            configure: {
                $0.live = live
                $0.adminToken = token
            }, body)
    }

    static func post(_ port: Int, _ events: [JSONValue]) throws {
        let (status, _) = try EventsAPI.post(port, events: events)
        #expect(status == 200)
    }

    static let exposure = SampleEvents.placementEvent("exposure", id: "e-1")
    static let click = SampleEvents.placementEvent("action", id: "a-1", extra: [("action", SampleEvents.addAction())])
    static let invalid: JSONValue = ["eventID": "bad-1", "type": "exposure"]

    @Test("the backlog after a cursor, then live events; rejected ones with their reason; Last-Event-ID resumes")
    func backlogThenLive() throws {
        try Self.withServer { server in
            try Self.post(server.port, [Self.exposure, Self.invalid])
            let viewer = try LiveStreamClient(port: server.port, query: "after=0")
            #expect(viewer.response.status == 200)
            #expect(viewer.response.header("Content-Type")?.hasPrefix("text/event-stream") == true)
            let backlog = try viewer.read(until: 2).filter { $0.data != nil }
            #expect(backlog.map(\.id) == [1, 2])
            #expect(backlog.map(\.event) == ["accepted", "rejected"])
            #expect(backlog[0].json?["event"]?["eventID"]?.stringValue == "e-1")
            #expect(backlog[0].json?["campaignID"]?.stringValue == "home-hero")
            #expect(backlog[1].json?["field"]?.stringValue == "timestamp")
            #expect(backlog[1].json?["reason"]?.stringValue?.isEmpty == false)

            try Self.post(server.port, [SampleEvents.placementEvent("exposure", id: "e-2")])
            let live = try viewer.read(until: 1).filter { $0.data != nil }
            #expect(live.map(\.id) == [3])
            #expect(live.first?.json?["event"]?["eventID"]?.stringValue == "e-2")

            // A client reconnecting after id 2 gets 3 only; a repeated batch is marked as duplicate.
            let resumed = try LiveStreamClient(port: server.port, headers: ["Last-Event-ID: 2"])
            try Self.post(server.port, [SampleEvents.placementEvent("exposure", id: "e-2")])
            let after = try resumed.read(until: 2).filter { $0.data != nil }
            #expect(after.map(\.id) == [3, 4])
            #expect(after.map(\.event) == ["accepted", "duplicate"])
        }
    }

    @Test("filters by workspace, type, install and campaign")
    func filters() throws {
        try Self.withServer { server in
            try Self.post(server.port, [Self.exposure, Self.click, Self.invalid])
            let byType = try LiveStreamClient(port: server.port, query: "after=0&type=action")
            #expect(try byType.read(until: 1).compactMap(\.id) == [2])
            let other = try LiveStreamClient(port: server.port, query: "after=0&workspace=elsewhere")
            let byCampaign = try LiveStreamClient(port: server.port, query: "after=0&campaign=home-hero")
            #expect(try byCampaign.read(until: 2).compactMap(\.id) == [1, 2])
            let byInstall = try LiveStreamClient(port: server.port, query: "after=0&install=install-1")
            #expect(try byInstall.read(until: 3).compactMap(\.id) == [1, 2, 3])
            // Nothing for another workspace: heartbeats only, and the events after them are the next ones.
            let beats = try other.read(until: 2) { $0.comment == "heartbeat" }
            #expect(beats.allSatisfy { $0.data == nil })
            let unknown = try LiveStreamClient(port: server.port, query: "kind=x")
            #expect(unknown.response.status == 400)
            let badCursor = try LiveStreamClient(port: server.port, query: "after=-1")
            #expect(badCursor.response.status == 400)
        }
    }

    @Test("a heartbeat comment at once and whenever nothing else was sent for the interval")
    func heartbeats() throws {
        try Self.withServer { server in
            let viewer = try LiveStreamClient(port: server.port)
            let messages = try viewer.read(until: 3) { $0.comment == "heartbeat" }
            #expect(messages.count >= 3)
        }
    }

    @Test("a viewer behind the feed gets a gap with how many it missed, then the oldest kept")
    func gapForAViewerBehind() throws {
        try Self.withServer(.init(feedCapacity: 4, heartbeat: .milliseconds(50))) { server in
            for batch in 0..<3 {
                try Self.post(
                    server.port,
                    (0..<3).map { SampleEvents.placementEvent("exposure", id: "e-\(batch)-\($0)") })
            }
            // The writer appends a group to the feed after its answers are sent: wait for the last event, or
            // the viewer below may find the feed one batch short.
            let newest = try LiveStreamClient(port: server.port, query: "after=8")
            #expect(try newest.read(until: 1).compactMap(\.id).contains(9))
            let viewer = try LiveStreamClient(port: server.port, query: "after=0")
            let messages = try viewer.read(until: 4).filter { $0.data != nil }
            #expect(messages.first?.event == "gap")
            #expect(messages.first?.json?["missed"]?.int64Value == 6)
            #expect(messages.first?.id == 6)
            #expect(messages.dropFirst().map(\.id) == [7, 8, 9])
        }
    }

    /// Batches of 15 events of 30 KB for the slow viewer.
    static let slowBatches = 16

    @Test("a viewer that stops reading never slows ingestion; when it reads again it is told of the gap")
    func slowViewer() throws {
        try Self.withServer(.init(feedCapacity: 16, heartbeat: .seconds(60))) { server in
            let viewer = try LiveStreamClient(port: server.port)
            viewer.client.shrinkReceiveBuffer(to: 65536)
            _ = try viewer.read(until: 1) { $0.comment == "heartbeat" }
            // About 7 MB of events (`slowBatches`), far past what the connection queues (1 MiB) and the sockets hold: every
            // batch is still answered while the viewer reads nothing.
            let note = String(repeating: "n", count: 30_000)
            for batch in 0..<Self.slowBatches {
                let events = (0..<15).map {
                    SampleEvents.placementEvent("exposure", id: "s-\(batch)-\($0)", extra: [("note", .string(note))])
                }
                try Self.post(server.port, events)
            }
            var gap: LiveStreamClient.Message?
            var last = 0
            while gap == nil && last < Self.slowBatches * 15 {
                let messages = try viewer.read(until: 1)
                gap = messages.first { $0.event == "gap" }
                last = messages.compactMap(\.id).last ?? last
            }
            #expect(gap?.json?["missed"]?.int64Value ?? 0 > 0)
        }
    }

    @Test("a viewer that leaves is freed, and shutdown ends the streams that remain")
    func leavingFreesTheViewer() throws {
        try Self.withServer { server in
            let leaving = try LiveStreamClient(port: server.port)
            let staying = try LiveStreamClient(port: server.port)
            _ = try leaving.read(until: 1) { $0.comment != nil }
            _ = try staying.read(until: 1) { $0.comment != nil }
            #expect(server.viewers.count == 2)
            leaving.client.reset()
            #expect(eventually(seconds: 5) { server.viewers.count == 1 })
            server.shutdown()
            _ = try staying.readToEnd()
            #expect(staying.ended)
        }
    }

    @Test("at most maxViewers at once: one more is 503 too_many_viewers, and a freed place is taken again")
    func viewerCap() throws {
        try Self.withServer(.init(maxViewers: 2, heartbeat: .milliseconds(50))) { server in
            let first = try LiveStreamClient(port: server.port)
            let second = try LiveStreamClient(port: server.port)
            _ = try second.read(until: 1) { $0.comment != nil }
            let refused = try LiveStreamClient(port: server.port)
            #expect(refused.response.status == 503)
            #expect(EventsAPI.errorCode(refused.response) == "too_many_viewers")
            #expect(refused.response.header("Retry-After") == "5")
            first.client.reset()
            #expect(eventually(seconds: 5) { server.viewers.count == 1 })
            #expect(try LiveStreamClient(port: server.port).response.status == 200)
        }
    }

    @Test("a viewer that closes its side is freed at once, with no heartbeat due and places to spare")
    func closedViewerIsFreedAtOnce() throws {
        try Self.withServer(.init(maxViewers: 8, heartbeat: .seconds(3600))) { server in
            let gone = try LiveStreamClient(port: server.port)
            _ = try gone.read(until: 1) { $0.comment != nil }
            #expect(server.viewers.count == 1)
            // As a browser leaves a page: a FIN, with everything sent read. Only the FIN can tell the server.
            gone.client.closeNow()
            #expect(eventually { server.viewers.count == 0 })
            // A finite answer to a client that half-closes is still sent whole (RFC 9112 §9.6): see the HTTP
            // core's half-close tests; only an endless stream stops.
        }
    }

    @Test("viewers that closed their connections are found out when the viewers are full, not a heartbeat later")
    func closedViewersAreFoundWhenFull() throws {
        // A heartbeat an hour apart: only the probe can free the places of viewers that left.
        try Self.withServer(.init(maxViewers: 2, heartbeat: .seconds(3600))) { server in
            for _ in 0..<2 {
                // As a browser leaves a page: a FIN, with everything sent read.
                let gone = try LiveStreamClient(port: server.port)
                _ = try gone.read(until: 1) { $0.comment != nil }
                gone.client.closeNow()
            }
            var statuses: [Int] = []
            #expect(
                try eventually(seconds: 10) {
                    let viewer = try LiveStreamClient(port: server.port)
                    statuses.append(viewer.response.status)
                    return viewer.response.status == 200
                })
            #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 })
        }
    }

    @Test("behind the admin token: 401 without it, the stream with it")
    func tokenRequired() throws {
        try Self.withServer(token: Self.token) { server in
            let refused = try LiveStreamClient(port: server.port)
            #expect(refused.response.status == 401)
            #expect(EventsAPI.errorCode(refused.response) == "admin_token_required")
            #expect(try LiveStreamClient(port: server.port, token: "wrong").response.status == 401)
            let viewer = try LiveStreamClient(port: server.port, token: Self.token)
            #expect(viewer.response.status == 200)
            #expect(try viewer.read(until: 1) { $0.comment != nil }.isEmpty == false)
        }
    }

    @Test("ten viewers hold no blocking-pool thread: the control API and ingestion still answer")
    func viewersHoldNoPoolThread() throws {
        try Self.withServer { server in
            let viewers = try (0..<10).map { _ in try LiveStreamClient(port: server.port) }
            for viewer in viewers { _ = try viewer.read(until: 1) { $0.comment != nil } }
            #expect(server.viewers.count == 10)
            #expect(try fetch(server.port, Control.request("GET", "/_mock/clock")).status == 200)
            try Self.post(server.port, [Self.exposure])
            let (status, body) = try EventsAPI.json(server.port, "/_mock/events?workspace=shop")
            #expect(status == 200)
            #expect(body["events"]?.arrayValue?.count == 1)
            for viewer in viewers { #expect(try viewer.read(until: 1).contains { $0.id == 1 }) }
        }
    }
}
