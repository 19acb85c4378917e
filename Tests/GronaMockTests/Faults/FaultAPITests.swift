import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// A rule `POST /_mock/faults` must refuse, and the field its message must name.
struct InvalidFaultCase: Sendable, CustomTestStringConvertible {
    var body: String
    /// Text the message must hold: the field, as the message names it.
    var names: String
    var testDescription: String { body }
}

/// The `/_mock/faults` API (contract §8): adding, listing with counts, removing; validation; and seeded rules
/// that repeat exactly.
@Suite("/_mock/faults")
struct FaultAPITests {
    @Test("POST answers 201 with the rule and its id; GET lists rules with fired and remaining counts")
    func addAndList() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let added = try fetch(
                server.port,
                FaultAPI.post("/_mock/faults", #"{"endpoint": "config", "kind": "status", "status": 503, "count": 3}"#))
            #expect(added.status == 201)
            let rule = try JSONParser().parse(added.body)
            let id = try #require(rule["id"]?.stringValue)
            #expect(added.header("Location") == "/_mock/faults/\(id)")
            #expect(rule["endpoint"] == "config")
            #expect(rule["kind"] == "status")
            #expect(rule["status"] == 503)
            #expect(rule["retryAfterSeconds"] == 1)
            #expect(rule["count"] == 3)
            #expect(rule["fired"] == 0)
            #expect(rule["remaining"] == 3)
            let seeded = try FaultAPI.add(
                server.port, #"{"endpoint": "all", "kind": "drop", "probability": 0, "seed": 18446744073709551615}"#)
            #expect(seeded["seed"]?.numberValue?.text == "18446744073709551615")
            #expect(seeded["remaining"] == .null)

            for _ in 0..<2 { _ = try fetch(server.port, FaultAPI.config) }
            let rules = try FaultAPI.rules(server.port)
            #expect(rules.count == 2)
            #expect(rules.first?["id"]?.stringValue == id)
            #expect(rules.first?["fired"] == 2)
            #expect(rules.first?["remaining"] == 1)
            // The seeded rule saw both requests (its draws are taken whichever rule fires) and never fired.
            #expect(rules.last?["fired"] == 0)
            #expect(rules.last?["seen"] == 2)

            let one = try fetch(server.port, "GET /_mock/faults/\(id) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(one.status == 200)
            let listed = try JSONParser().parse(one.body)
            #expect(listed["fired"] == 2)
        }
    }

    @Test("DELETE /_mock/faults/{id} removes one rule; DELETE /_mock/faults removes them all and faults stop")
    func delete() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let first = try FaultAPI.add(server.port, #"{"endpoint": "config", "kind": "drop", "count": 100}"#)
            try FaultAPI.add(server.port, #"{"endpoint": "grants", "kind": "status", "status": 500, "count": 100}"#)
            try FaultAPI.add(server.port, #"{"endpoint": "events", "kind": "status", "status": 429, "count": 100}"#)
            let id = try #require(first["id"]?.stringValue)

            let removed = try fetch(server.port, "DELETE /_mock/faults/\(id) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(removed.status == 200)
            let remaining = try FaultAPI.rules(server.port)
            #expect(remaining.count == 2)
            #expect(!remaining.contains { $0["id"]?.stringValue == id })
            let config = try fetch(server.port, FaultAPI.config)
            #expect(config.status == 200)

            let again = try fetch(server.port, "DELETE /_mock/faults/\(id) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(again.status == 404)
            #expect(FaultAPI.errorCode(again) == "unknown_fault")

            let grantsBefore = try fetch(server.port, FaultAPI.grants)
            #expect(grantsBefore.status == 500)
            let cleared = try fetch(server.port, "DELETE /_mock/faults HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(cleared.status == 200)
            let clearedBody = try JSONParser().parse(cleared.body)
            #expect(clearedBody["deleted"] == 2)
            let rules = try FaultAPI.rules(server.port)
            #expect(rules.isEmpty)
            let grants = try fetch(server.port, FaultAPI.grants)
            #expect(grants.status == 200)
            let events = try fetch(server.port, FaultAPI.events(1))
            #expect(events.status == 200)
            // Ids are not reused: a stale id cannot remove a rule added later.
            let next = try FaultAPI.add(server.port, #"{"endpoint": "config", "kind": "drop", "count": 1}"#)
            #expect(next["id"]?.stringValue != id)
        }
    }

    @Test("rules apply in the order they were added; a rule for one endpoint leaves the others alone")
    func ordering() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            try FaultAPI.add(server.port, #"{"endpoint": "config", "kind": "status", "status": 500, "count": 1}"#)
            try FaultAPI.add(server.port, #"{"endpoint": "all", "kind": "status", "status": 503, "count": 2}"#)
            let grants = try fetch(server.port, FaultAPI.grants)
            #expect(grants.status == 503)
            let first = try fetch(server.port, FaultAPI.config)
            #expect(first.status == 500)
            let second = try fetch(server.port, FaultAPI.config)
            #expect(second.status == 503)
            let third = try fetch(server.port, FaultAPI.config)
            #expect(third.status == 200)
            let events = try fetch(server.port, FaultAPI.events(1))
            #expect(events.status == 200)
        }
    }

    /// Which of `requests` config requests a seeded 503 rule fails, on one keep-alive connection; the rule is
    /// removed afterwards.
    private static func fires(_ port: Int, seed: UInt64, probability: Double, requests: Int) throws -> [Bool] {
        let rule = try FaultAPI.add(
            port,
            #"{"endpoint": "config", "kind": "status", "status": 503, "#
                + #""probability": \#(probability), "seed": \#(seed)}"#
        )
        let client = try RawClient(port: port)
        var fires: [Bool] = []
        for _ in 0..<requests {
            try client.send(FaultAPI.config)
            let response = try client.readResponse()
            fires.append(response.status == 503)
        }
        let id = rule["id"]?.stringValue ?? ""
        let listed = try FaultAPI.rule(port, id: id)
        #expect(listed?["fired"]?.int64Value == Int64(fires.filter { $0 }.count))
        #expect(listed?["seen"]?.int64Value == Int64(requests))
        _ = try fetch(port, "DELETE /_mock/faults/\(id) HTTP/1.1\r\nHost: x\r\n\r\n")
        return fires
    }

    @Test("the same seed fails the same requests; another seed others; both as SplitMix64 predicts")
    func seeds() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let first = try Self.fires(server.port, seed: 42, probability: 0.3, requests: 200)
            let again = try Self.fires(server.port, seed: 42, probability: 0.3, requests: 200)
            let other = try Self.fires(server.port, seed: 43, probability: 0.3, requests: 200)
            #expect(first == again)
            #expect(first != other)
            #expect(first.contains(true) && first.contains(false))
            // Anyone can predict a seeded rule offline: one SplitMix64 draw per request.
            for (seed, observed) in [(UInt64(42), first), (43, other)] {
                var generator = SplitMix64(seed: seed)
                let predicted = (0..<200).map { _ in SplitMix64.fires(generator.next(), probability: 0.3) }
                #expect(observed == predicted)
            }
        }
    }

    @Test("a seeded rule with a count fires at random, at most count times")
    func probabilityWithCount() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let rule = try FaultAPI.add(
                server.port, #"{"endpoint": "config", "kind": "drop", "probability": 0.5, "seed": 7, "count": 3}"#)
            var drops = 0
            for _ in 0..<40 {
                let received = try WireConnection.exchange(
                    server.port,
                    FaultAPI.config.replacingOccurrences(of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n"))
                if received.bytes.isEmpty { drops += 1 }
            }
            #expect(drops == 3)
            let listed = try FaultAPI.rule(server.port, id: rule["id"]?.stringValue ?? "")
            #expect(listed?["fired"] == 3)
            #expect(listed?["remaining"] == 0)
        }
    }

    @Test("SplitMix64 is the reference generator (Vigna's splitmix64.c, seed 0)")
    func splitMixVectors() {
        var generator = SplitMix64(seed: 0)
        let outputs = (0..<4).map { _ in generator.next() }
        #expect(
            outputs == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F, 0xF88B_B8A8_724C_81EC])
        #expect(!SplitMix64.fires(0, probability: 0))
        #expect(SplitMix64.fires(.max, probability: 1))
    }

    static let invalidCases: [InvalidFaultCase] = [
        InvalidFaultCase(body: #"{"kind": "drop", "count": 1}"#, names: "endpoint:"),
        InvalidFaultCase(body: #"{"endpoint": "checkout", "kind": "drop", "count": 1}"#, names: "endpoint:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "count": 1}"#, names: "kind:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "kind": "explode", "count": 1}"#, names: "kind:"),
        InvalidFaultCase(body: #"{"endpoint": "grants", "kind": "bad_signature", "count": 1}"#, names: "endpoint:"),
        InvalidFaultCase(body: #"{"endpoint": "all", "kind": "unknown_kid", "count": 1}"#, names: "endpoint:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "kind": "expired", "count": 1}"#, names: "endpoint:"),
        InvalidFaultCase(body: #"{"endpoint": "events", "kind": "unsigned", "count": 1}"#, names: "endpoint:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "kind": "status", "count": 1}"#, names: "status:"),
        InvalidFaultCase(
            body: #"{"endpoint": "config", "kind": "status", "status": 200, "count": 1}"#, names: "status:"),
        InvalidFaultCase(
            body: #"{"endpoint": "config", "kind": "status", "status": 503, "retryAfterSeconds": -1, "count": 1}"#,
            names: "retryAfterSeconds:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "kind": "delay", "count": 1}"#, names: "delayMs:"),
        InvalidFaultCase(
            body: #"{"endpoint": "config", "kind": "delay", "delayMs": "fast", "count": 1}"#, names: "delayMs:"),
        InvalidFaultCase(
            body: #"{"endpoint": "config", "kind": "truncate", "afterBytes": -5, "count": 1}"#, names: "afterBytes:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "kind": "drop"}"#, names: "count:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "kind": "drop", "count": 0}"#, names: "count:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "kind": "drop", "count": 1.5}"#, names: "count:"),
        InvalidFaultCase(
            body: #"{"endpoint": "config", "kind": "drop", "probability": 1.5, "seed": 1}"#, names: "probability:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "kind": "drop", "probability": 0.5}"#, names: "seed:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "kind": "drop", "seed": 1, "count": 1}"#, names: "seed:"),
        InvalidFaultCase(
            body: #"{"endpoint": "config", "kind": "drop", "probability": 0.5, "seed": -1}"#, names: "seed:"),
        InvalidFaultCase(body: #"{"endpoint": "config", "kind": "drop", "count": 1, "delayMs": 5}"#, names: "delayMs:"),
        InvalidFaultCase(
            body: #"{"endpoint": "config", "kind": "drop", "count": 1, "delayMS": 5}"#, names: #""delayMS":"#),
        InvalidFaultCase(body: #"[{"endpoint": "config", "kind": "drop", "count": 1}]"#, names: "JSON object"),
    ]

    @Test("an invalid rule is refused with 400 invalid_fault naming the field, and not added", arguments: invalidCases)
    func invalid(_ row: InvalidFaultCase) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try fetch(server.port, FaultAPI.post("/_mock/faults", row.body))
            #expect(response.status == 400)
            #expect(FaultAPI.errorCode(response) == "invalid_fault")
            let message = (try? JSONParser().parse(response.body))?["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains(row.names), "\(message)")
            let rules = try FaultAPI.rules(server.port)
            #expect(rules.isEmpty)
        }
    }

    @Test("every problem of a rule is reported at once; a body that is not JSON is malformed_json")
    func allProblemsAtOnce() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try fetch(server.port, FaultAPI.post("/_mock/faults", #"{"endpoint": "x", "kind": "y"}"#))
            let message = (try? JSONParser().parse(response.body))?["error"]?["message"]?.stringValue ?? ""
            #expect(response.status == 400)
            #expect(message.contains("endpoint:") && message.contains("kind:") && message.contains("count:"))
            let malformed = try fetch(server.port, FaultAPI.post("/_mock/faults", "{\"endpoint\": "))
            #expect(malformed.status == 400)
            #expect(FaultAPI.errorCode(malformed) == "malformed_json")
        }
    }
}
