import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Integers from clients and from the controllable clock never trap: each computation has a documented
/// rule (refuse, clamp, or reject that one event), and the server keeps serving.
@Suite("Hostile numbers", .serialized)
struct HostileNumberTests {
    static let latest = MockTime.range.upperBound

    static func clock(_ port: Int, _ body: String) throws -> RawClient.Response {
        try fetch(port, Control.request("POST", "/_mock/clock", body: body))
    }

    @Test("the clock refuses changes that leave 1970…9999 with 400 invalid_clock and changes nothing")
    func clockRange() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let refused = [
                "{\"offsetMs\":\(Self.latest)}", "{\"advanceMs\":-\(Self.latest)}",
                "{\"offsetMs\":9223372036854775807}",
                "{\"advanceMs\":-9223372036854775808}", "{\"freeze\":true,\"at\":-1}",
                "{\"freeze\":true,\"at\":\(Self.latest + 1)}", "{\"reset\":\"yes\"}", "{\"reset\":1}",
                "{\"freeze\":\"true\"}",
                "{\"at\":5}", "{\"advanceMs\":1.5}", "{\"advanceMs\":1e30}",
            ]
            for body in refused {
                let before = try JSONParser().parse(try fetch(server.port, Control.request("GET", "/_mock/clock")).body)
                let response = try Self.clock(server.port, body)
                #expect(response.status == 400, "\(body) answered \(response.status)")
                #expect(EventsAPI.errorCode(response) == "invalid_clock", "\(body)")
                let after = try JSONParser().parse(try fetch(server.port, Control.request("GET", "/_mock/clock")).body)
                #expect(after["offsetMs"] == before["offsetMs"] && after["frozen"] == before["frozen"], "\(body)")
            }
            // The last millisecond is allowed; one more is not, and the clock stays where it was.
            #expect(try Self.clock(server.port, "{\"freeze\":true,\"at\":\(Self.latest)}").status == 200)
            #expect(try Self.clock(server.port, "{\"advanceMs\":1}").status == 400)
            #expect(server.clock.nowMilliseconds() == Self.latest)
            #expect(try Self.clock(server.port, "{\"reset\":true}").status == 200)
        }
    }

    @Test("a clock pushed to the ends in process is clamped, and kills, grants and violations keep working")
    func clockAtTheEnds() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            for step: Int64 in [.max, .min, .max] {
                server.clock.advance(byMilliseconds: step)
                #expect(MockTime.range.contains(server.clock.nowMilliseconds()))
                let kill = try fetch(
                    server.port, Control.request("POST", "/_mock/workspaces/shop/campaigns/home-hero/kill"))
                #expect(kill.status == 200)
                let violations = try fetch(
                    server.port, Control.request("GET", "/_mock/events/violations?workspace=shop"))
                #expect(violations.status == 200)
                let grants = try fetch(server.port, GrantsEndpointTests.request("{\"customerID\":\"c-1\"}"))
                #expect(grants.status == 200)
                let revive = try fetch(
                    server.port, Control.request("POST", "/_mock/workspaces/shop/campaigns/home-hero/revive"))
                #expect(revive.status == 200)
            }
            server.clock.freeze(atMilliseconds: .max)
            #expect(server.clock.nowMilliseconds() == Self.latest)
            server.clock.setOffset(milliseconds: .min)
            server.clock.unfreeze()
            #expect(MockTime.range.contains(server.clock.nowMilliseconds()))
        }
    }

    @Test("event times outside the range reject that event; the skew-corrected time is never negative")
    func eventTimes() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            // timestamp 2^63-1 with sentAt 1: the event is rejected, naming the field.
            let huge = try EventsAPI.post(
                server.port, events: [SampleEvents.placementEvent("exposure", id: "huge", timestamp: .max)], sentAt: 1)
            #expect(huge.status == 200)
            #expect(huge.body["rejected"]?.arrayValue?.first?["field"]?.stringValue == "timestamp")
            // A device clock far ahead of the server: the corrected time would be before 1970, so it is 0.
            let ahead = try EventsAPI.post(
                server.port, events: [SampleEvents.placementEvent("exposure", id: "early", timestamp: 1)],
                sentAt: Self.latest)
            #expect(ahead.status == 200)
            let stored = try EventsAPI.stored(server.port)
            let early = stored.first { $0["eventID"]?.stringValue == "early" }
            #expect(early?["correctedTimestamp"]?.int64Value == 0)
            // sentAt beyond the range fails the envelope.
            for sentAt: Int64 in [.max, Self.latest + 1, 0, -1] {
                let response = try EventsAPI.post(
                    server.port, events: [SampleEvents.placementEvent("exposure", id: "s")], sentAt: sentAt)
                #expect(response.status == 400, "sentAt \(sentAt)")
                #expect(response.body["error"]?["code"]?.stringValue == "invalid_envelope")
            }
        }
    }

    @Test("huge query numbers (cursors, long-poll timeouts, limits) answer, never trap")
    func queryNumbers() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            #expect(
                try EventsAPI.post(server.port, events: [SampleEvents.placementEvent("exposure", id: "e")]).status
                    == 200)
            for target in [
                "/_mock/events?cursor=9223372036854775807", "/_mock/events?cursor=-9223372036854775808",
                "/_mock/events?cursor=99999999999999999999", "/_mock/events?limit=9223372036854775807",
                "/_mock/events/wait?workspaceKey=shop&count=1&timeoutMs=9223372036854775807",
                "/_mock/events/wait?workspaceKey=shop&count=9223372036854775807&timeoutMs=0",
            ] {
                let response = try fetch(server.port, Control.request("GET", target))
                #expect([200, 400].contains(response.status), "\(target) answered \(response.status)")
            }
            #expect(try fetch(server.port, Control.request("GET", "/_mock/health")).status == 200)
        }
    }

    @Test("timeouts configured as for ever start a server that serves")
    func foreverTimeouts() throws {
        let fixture = try MockFixture.standard()
        var configuration = fixture.configuration()
        configuration.http.headerTimeout = .seconds(Int64.max)
        configuration.http.bodyTimeout = .seconds(Int64.max)
        configuration.http.idleTimeout = .seconds(Int64.max)
        configuration.http.writeTimeout = .seconds(Int64.max)
        configuration.http.shutdownTimeout = .seconds(1)
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        #expect(try fetch(server.port, "GET /_mock/health HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
    }
}
