import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Integers as JSON Schema (and so the OpenAPI document) has them: any number whose value is integral is an
/// integer, however it is written (`1041.0`, `1.041e3`). Every integer field of `/v1/mobile` and `/_mock`
/// takes them, in range; `1041.5` and out-of-range values are still refused with the field named (issue 28).
@Suite("Integral numbers written with a fraction or an exponent")
struct IntegralNumberTests {
    /// A batch whose every integer field is written as a decimal or with an exponent.
    static let decimalBatch = """
        {"workspaceKey":"shop","installID":"install-1","sdk":{"platform":"ios","version":"1.4.0"},
         "app":{"id":"com.example.shop","version":"5.2.0"},"sentAt":1.764478800123e12,
         "events":[
          {"eventID":"d-1","type":"exposure","timestamp":1764478799001.0,"sessionID":"s-1","customerID":null,
           "demo":false,"configRevision":3.0,"placement":"home_top","screen":{"type":"home"},"key":null,
           "visitID":"v-1","campaignID":"home-hero","variantID":"banner","arm":"treatment"},
          {"eventID":"d-2","type":"action","timestamp":176447879900100e-2,"sessionID":"s-1","customerID":null,
           "demo":false,"configRevision":3,"placement":"home_top","screen":{"type":"home"},"key":null,
           "visitID":"v-1","campaignID":"home-hero","variantID":"banner","arm":"treatment",
           "action":{"kind":"add","lines":[{"productID":"sku-1","quantity":2.0}],"result":"accepted"}},
          {"eventID":"d-3","type":"purchase","timestamp":1764478799001,"sessionID":"s-1","customerID":"cust_123",
           "demo":false,"orderID":"order-1","totalMinor":4.999E3,"currency":"EUR","productIDs":["sku-1"],
           "treatments":[{"campaignID":"checkout-10-off","variantID":"ten-off","placement":"checkout_above_pay",
                          "type":"percent_off","valueMilli":1e4}]}]}
        """

    @Test("events: sentAt, timestamp, configRevision, quantity, totalMinor and valueMilli take integral decimals")
    func events() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            server.clock.freeze(atMilliseconds: EventsAPI.receivedAt)
            let response = try EventsAPI.post(server.port, Array(Self.decimalBatch.utf8))
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            let answer = try JSONParser().parse(response.body)
            #expect(answer["accepted"] == 3)
            #expect(answer["rejected"]?.arrayValue?.isEmpty == true, "\(answer)")
            let stored = try EventsAPI.stored(server.port)
            #expect(EventsAPI.eventIDs(stored).sorted() == ["d-1", "d-2", "d-3"])
            // The skew correction computed from the decimal sentAt: timestamp + (receivedAt - sentAt).
            let first = try #require(stored.first { $0["eventID"] == "d-1" })
            #expect(first["correctedTimestamp"]?.int64Value == EventsAPI.timestamp + 2_500)
        }
    }

    @Test(
        "events: a fraction that is not zero, or a value out of range, is still refused with the field named",
        arguments: [
            ("timestamp", "1764478799001.5"), ("configRevision", "3.25"), ("configRevision", "-1.0"),
            ("timestamp", "1e400"),
        ])
    func eventFieldRefused(field: String, value: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            var event = SampleEvents.placementEvent("exposure", id: "bad-1").objectValue ?? JSONObject()
            event.set(field, .number(try #require(JSONNumber(text: value))))
            let (status, answer) = try EventsAPI.post(server.port, events: [.object(event)])
            #expect(status == 200)
            #expect(answer["accepted"] == 0)
            let rejected = try #require(answer["rejected"]?[0])
            #expect(rejected["field"]?.stringValue == field, "\(rejected)")
        }
    }

    @Test("events: sentAt 1764478800123.5 is refused with 400, naming sentAt")
    func sentAtRefused() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let body = Self.decimalBatch.replacingOccurrences(of: "1.764478800123e12", with: "1764478800123.5")
            let response = try EventsAPI.post(server.port, Array(body.utf8))
            #expect(response.status == 400)
            #expect(EventsAPI.errorMessage(response).contains("sentAt"))
        }
    }

    @Test("faults: delayMs, status, retryAfterSeconds, count and seed take integral decimals, echoed as integers")
    func faults() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let delay = try FaultAPI.add(
                server.port, #"{"endpoint":"config","kind":"delay","delayMs":5.0,"count":2e0}"#)
            #expect(delay["delayMs"]?.numberValue?.text == "5")
            #expect(delay["count"]?.numberValue?.text == "2")
            let status = try FaultAPI.add(
                server.port,
                #"{"endpoint":"grants","kind":"status","status":503.0,"retryAfterSeconds":1.5e1,"#
                    + #""probability":0.5,"seed":1.8446744073709551615e19}"#)
            #expect(status["status"]?.numberValue?.text == "503")
            #expect(status["retryAfterSeconds"]?.numberValue?.text == "15")
            #expect(status["seed"]?.numberValue?.text == "18446744073709551615")

            for body in [
                #"{"endpoint":"config","kind":"delay","delayMs":5.5}"#,
                #"{"endpoint":"config","kind":"status","status":503,"count":1.5}"#,
                #"{"endpoint":"config","kind":"status","status":503,"probability":1,"seed":1.8446744073709551616e19}"#,
            ] {
                let refused = try fetch(server.port, FaultAPI.post("/_mock/faults", body))
                #expect(refused.status == 400, "\(body)")
                let field = body.contains("5.5") ? "delayMs" : body.contains("1.5") ? "count" : "seed"
                #expect(EventsAPI.errorMessage(refused).contains(field), "\(body)")
            }
        }
    }

    @Test("clock: offsetMs, advanceMs and at take integral decimals; 1.5 is refused")
    func clock() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let offset = try fetch(server.port, Control.request("POST", "/_mock/clock", body: #"{"offsetMs":1.5e3}"#))
            #expect(offset.status == 200)
            #expect(try JSONParser().parse(offset.body)["offsetMs"] == 1500)
            let frozen = try fetch(
                server.port, Control.request("POST", "/_mock/clock", body: #"{"freeze":true,"at":1764478800000.0}"#))
            #expect(frozen.status == 200)
            #expect(server.clock.nowMilliseconds() == 1_764_478_800_000)
            let advanced = try fetch(
                server.port, Control.request("POST", "/_mock/clock", body: #"{"advanceMs":1000.000}"#))
            #expect(advanced.status == 200)
            #expect(server.clock.nowMilliseconds() == 1_764_478_801_000)
            let refused = try fetch(server.port, Control.request("POST", "/_mock/clock", body: #"{"advanceMs":1.5}"#))
            #expect(refused.status == 400)
            #expect(EventsAPI.errorMessage(refused).contains("advanceMs"))
        }
    }

    @Test("clones: ttlSeconds 60.0 is 60 seconds")
    func cloneTTL() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let created = try fetch(
                server.port,
                Control.request(
                    "POST", "/_mock/workspaces/shop/clone", body: #"{"workspaceKey":"run-1","ttlSeconds":6e1}"#))
            #expect(created.status == 201)
            #expect(try JSONParser().parse(created.body)["ttlSeconds"]?.numberValue?.text == "60")
        }
    }

    @Test("workspaces: integral decimals are accepted and served as plain integers in the signed configuration")
    func workspaceServedCanonical() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let document = MockFixture.workspace("shop")
                .replacingOccurrences(of: #""priority": 10,"#, with: #""priority": 10.0,"#)
                .replacingOccurrences(of: #""weight": 500}"#, with: #""weight": 5e2}"#)
                .replacingOccurrences(of: #""valueMilli": 10000"#, with: #""valueMilli": 1.0e4"#)
            #expect(document.contains("10.0") && document.contains("5e2") && document.contains("1.0e4"))
            let put = try fetch(server.port, Control.request("PUT", "/_mock/workspaces/shop", body: document))
            #expect(put.status == 200, "\(String(decoding: put.body, as: UTF8.self))")
            let (_, payload, _) = try Control.configuration(server.port, "shop")
            #expect(payload["campaigns"]?[0]?["priority"]?.numberValue?.text == "10")
            #expect(payload["settings"]?["holdout"]?["weight"]?.numberValue?.text == "500")
            let offer = payload["campaigns"]?[1]?["variants"]?[1]?["component"]?["treatment"]
            #expect(offer?["valueMilli"]?.numberValue?.text == "10000")
            // The grant carries the offer's value as an integer too.
            let grants = try fetch(server.port, GrantsEndpointTests.request(#"{"customerID":"cust_123"}"#))
            #expect(grants.status == 200)
        }
    }
}
