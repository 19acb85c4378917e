import Foundation
import GronaMock
import GronaMockJSON
import GronaMockTestSupport
import Testing

/// A status rule and what a client must see for it.
struct StatusFaultCase: Sendable, CustomTestStringConvertible {
    var endpoint: String
    var status: Int
    var retryAfterSeconds: Int?
    var expectedRetryAfter: String?
    var testDescription: String {
        "\(status) on \(endpoint)" + (retryAfterSeconds.map { " with retryAfterSeconds \($0)" } ?? "")
    }
}

/// Each fault kind as a standard client sees it (contract §8), and that a rule for N requests stops after N:
/// the request after them gets the ordinary answer.
@Suite("Injected faults, kind by kind")
struct FaultKindTests {
    static let endpoints = ["config", "grants", "events"]

    static let statusCases = [
        StatusFaultCase(endpoint: "config", status: 503, expectedRetryAfter: "1"),
        StatusFaultCase(endpoint: "grants", status: 500, expectedRetryAfter: nil),
        StatusFaultCase(endpoint: "events", status: 429, retryAfterSeconds: 7, expectedRetryAfter: "7"),
        StatusFaultCase(endpoint: "events", status: 503, expectedRetryAfter: "1"),
        StatusFaultCase(endpoint: "config", status: 502, retryAfterSeconds: 3, expectedRetryAfter: "3"),
    ]

    @Test("status: the status with the contract's error body (injected_fault) and Retry-After", arguments: statusCases)
    func status(_ row: StatusFaultCase) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let retryAfter = row.retryAfterSeconds.map { ", \"retryAfterSeconds\": \($0)" } ?? ""
            try FaultAPI.add(
                server.port,
                #"{"endpoint": "\#(row.endpoint)", "kind": "status", "#
                    + #""status": \#(row.status)\#(retryAfter), "count": 2}"#
            )
            for index in 0..<2 {
                let response = try fetch(server.port, FaultAPI.request(row.endpoint, index))
                #expect(response.status == row.status)
                #expect(response.header("Retry-After") == row.expectedRetryAfter)
                #expect(response.header("Content-Type") == "application/json")
                #expect(FaultAPI.errorCode(response) == "injected_fault")
            }
            let after = try fetch(server.port, FaultAPI.request(row.endpoint, 2))
            #expect(after.status == 200)
            #expect(after.header("Retry-After") == nil)
            if row.endpoint == "events" {
                // A faulted batch never reached the store; the one after the rule did.
                let stored = try EventsAPI.stored(server.port)
                #expect(EventsAPI.eventIDs(stored) == ["e-2"])
            }
        }
    }

    @Test("delay: the ordinary answer, no sooner than the delay", arguments: endpoints)
    func delay(_ endpoint: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let delay = 300
            let rule = try FaultAPI.add(
                server.port, #"{"endpoint": "\#(endpoint)", "kind": "delay", "delayMs": \#(delay), "count": 2}"#)
            let clock = ContinuousClock()
            for index in 0..<2 {
                let started = clock.now
                let response = try fetch(server.port, FaultAPI.request(endpoint, index))
                let elapsed = clock.now - started
                #expect(response.status == 200)
                #expect(elapsed >= .milliseconds(delay))
                if endpoint == "grants" {
                    let (tokens, _) = try FaultAPI.grantTokens(response)
                    #expect(tokens.count == 1)
                }
            }
            let after = try fetch(server.port, FaultAPI.request(endpoint, 2))
            #expect(after.status == 200)
            let listed = try FaultAPI.rule(server.port, id: rule["id"]?.stringValue ?? "")
            #expect(listed?["fired"] == 2)
            #expect(listed?["remaining"] == 0)
        }
    }

    @Test("delay does not hold the event loop: other requests are answered while one waits")
    func delayDoesNotBlock() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            // The fixture's server has a single event loop, so a delay that blocked it would hold every request.
            let delay = 5000
            try FaultAPI.add(server.port, #"{"endpoint": "grants", "kind": "delay", "delayMs": \#(delay), "count": 1}"#)
            let clock = ContinuousClock()
            let started = clock.now
            let delayed = try WireConnection(port: server.port)
            try delayed.send(
                FaultAPI.grants.replacingOccurrences(of: "Host: x\r\n", with: "Host: x\r\nConnection: close\r\n"))
            let decided = try eventually { try FaultAPI.rules(server.port).first?["fired"] == 1 }
            #expect(decided)
            let other = try fetch(server.port, FaultAPI.config)
            #expect(other.status == 200)
            #expect(!delayed.isReadable())
            let answer = try delayed.readUntilClosed()
            #expect(answer.status == 200)
            #expect(clock.now - started >= .milliseconds(delay))
        }
    }

    @Test("drop: the connection closes with no response", arguments: endpoints)
    func drop(_ endpoint: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            try FaultAPI.add(server.port, #"{"endpoint": "\#(endpoint)", "kind": "drop", "count": 2}"#)
            for index in 0..<2 {
                let received = try WireConnection.exchange(server.port, FaultAPI.request(endpoint, index))
                #expect(received.bytes.isEmpty)
            }
            let after = try fetch(server.port, FaultAPI.request(endpoint, 2))
            #expect(after.status == 200)
            if endpoint == "events" {
                let stored = try EventsAPI.stored(server.port)
                #expect(EventsAPI.eventIDs(stored) == ["e-2"])
            }
        }
    }

    @Test("truncate: the head with the whole Content-Length, fewer body bytes, then the connection closes")
    func truncate() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let whole = try fetch(server.port, FaultAPI.config)
            #expect(whole.status == 200)
            try FaultAPI.add(server.port, #"{"endpoint": "config", "kind": "truncate", "afterBytes": 10, "count": 2}"#)
            for _ in 0..<2 {
                let cut = try WireConnection.exchange(server.port, FaultAPI.config)
                #expect(cut.status == 200)
                #expect(cut.header("Content-Length") == String(whole.body.count))
                #expect(cut.body == Array(whole.body.prefix(10)))
            }
            let after = try fetch(server.port, FaultAPI.config)
            #expect(after.body == whole.body)
        }
    }

    @Test("truncate without afterBytes cuts the body in half, on every endpoint", arguments: endpoints)
    func truncateByHalf(_ endpoint: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            try FaultAPI.add(server.port, #"{"endpoint": "\#(endpoint)", "kind": "truncate", "count": 1}"#)
            let cut = try WireConnection.exchange(server.port, FaultAPI.request(endpoint, 0))
            let length = Int(cut.header("Content-Length") ?? "") ?? 0
            #expect(cut.status == 200)
            #expect(length > 0)
            #expect(cut.body.count == length / 2)
            let after = try fetch(server.port, FaultAPI.request(endpoint, 1))
            #expect(after.status == 200)
            if endpoint == "events" {
                // The answer was lost, not the batch: both are stored, and an SDK's retry would be a duplicate.
                let stored = try EventsAPI.stored(server.port)
                #expect(EventsAPI.eventIDs(stored) == ["e-0", "e-1"])
            }
        }
    }

    @Test("bad_signature: the served configuration fails verification at the signature, for every key")
    func badSignature() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let keys = try fixture.publicKeys()
            let real = try fetch(server.port, FaultAPI.config)
            try FaultAPI.add(server.port, #"{"endpoint": "config", "kind": "bad_signature", "count": 2}"#)
            for _ in 0..<2 {
                let response = try fetch(server.port, FaultAPI.config)
                #expect(response.status == 200)
                #expect(response.header("ETag") != real.header("ETag"))
                let (payload, checks) = try ConfigVerification.general(response.body, keys: keys)
                #expect(payload == (try ConfigVerification.general(real.body, keys: keys)).payload)
                #expect(checks.map(\.kid) == ["cfg-1", "cfg-2"])
                #expect(checks.allSatisfy { $0.failure == .badSignature })
            }
            let after = try fetch(server.port, FaultAPI.config)
            let (_, checks) = try ConfigVerification.general(after.body, keys: keys)
            #expect(checks.count == 2)
            #expect(checks.allSatisfy { $0.failure == nil })
        }
    }

    @Test("unknown_kid: the configuration is signed under a kid the SDK has no key for")
    func unknownKeyID() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let keys = try fixture.publicKeys()
            let real = try fetch(server.port, FaultAPI.config)
            try FaultAPI.add(server.port, #"{"endpoint": "config", "kind": "unknown_kid", "count": 2}"#)
            for _ in 0..<2 {
                let response = try fetch(server.port, FaultAPI.config)
                #expect(response.status == 200)
                let (payload, checks) = try ConfigVerification.general(response.body, keys: keys)
                #expect(payload == (try ConfigVerification.general(real.body, keys: keys)).payload)
                #expect(checks.count == 1)
                let kid = try #require(checks.first?.kid)
                #expect(keys[kid] == nil)
                #expect(checks.first?.failure == .unknownKeyID(kid))
            }
            let after = try fetch(server.port, FaultAPI.config)
            let (_, checks) = try ConfigVerification.general(after.body, keys: keys)
            #expect(checks.map(\.kid) == ["cfg-1", "cfg-2"])
            #expect(checks.allSatisfy { $0.failure == nil })
        }
    }

    @Test("wrong_alg: the workspace's own keys sign, but each header names ES384, which a verifier refuses")
    func wrongAlgorithm() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let keys = try fixture.publicKeys()
            let real = try fetch(server.port, FaultAPI.config)
            try FaultAPI.add(server.port, #"{"endpoint": "config", "kind": "wrong_alg", "count": 1}"#)
            let response = try fetch(server.port, FaultAPI.config)
            #expect(response.status == 200)
            #expect(response.header("ETag") != real.header("ETag"))
            let (payload, checks) = try ConfigVerification.general(response.body, keys: keys)
            #expect(payload == (try ConfigVerification.general(real.body, keys: keys)).payload)
            #expect(checks.count == 2)
            #expect(checks.allSatisfy { $0.failure == .algorithmNotAllowed("ES384") })
            // Only the algorithm is wrong: each signature verifies with its key over its own signing input.
            let document = try JSONParser().parse(response.body)
            let encodedPayload = try #require(document["payload"]?.stringValue)
            var kids: [String] = []
            for entry in try #require(document["signatures"]?.arrayValue) {
                let protected = try #require(entry["protected"]?.stringValue)
                let header = try JSONParser().parse(try #require(Base64.urlDecode(protected)))
                let kid = try #require(header["kid"]?.stringValue)
                kids.append(kid)
                let signature = try #require(entry["signature"]?.stringValue.flatMap(Base64.urlDecode))
                let key = try #require(keys[kid])
                #expect(key.isValidSignature(signature, for: Array((protected + "." + encodedPayload).utf8)))
            }
            #expect(kids == ["cfg-1", "cfg-2"])
            let after = try fetch(server.port, FaultAPI.config)
            #expect(try ConfigVerification.general(after.body, keys: keys).1.allSatisfy { $0.failure == nil })
        }
    }

    @Test(
        "grant faults: each grant fails verification for exactly its reason",
        arguments: ["expired", "not_yet_valid", "other_customer", "other_audience", "unsigned"])
    func grantFault(_ kind: String) throws {
        let fixture = try MockFixture.standard()
        let customer = FaultAPI.offerCustomer
        try fixture.withServer { server in
            let keys = try fixture.publicKeys()
            try FaultAPI.add(server.port, #"{"endpoint": "grants", "kind": "\#(kind)", "count": 2}"#)
            for _ in 0..<2 {
                let response = try fetch(server.port, FaultAPI.grants)
                #expect(response.status == 200)
                let (tokens, now) = try FaultAPI.grantTokens(response)
                #expect(tokens.count == 1)
                let token = try #require(tokens.first)
                let result = Result { () throws(GrantVerifier.Failure) in
                    try GrantVerifier.verify(token, keys: keys, audience: "shop", now: now)
                }
                switch (kind, result) {
                case ("expired", .failure(.expired(let expiresAt, _))):
                    #expect(expiresAt + GrantVerifier.leewaySeconds < now)
                case ("not_yet_valid", .failure(.notYetValid(let notBefore, _))):
                    #expect(notBefore > now + GrantVerifier.leewaySeconds)
                case ("other_customer", .success(let claims)):
                    // Signed and for this workspace, but for someone else: an order backend must compare sub.
                    #expect(claims.subject != customer)
                case ("other_audience", .failure(.wrongAudience(let expected, let found))):
                    #expect(expected == "shop")
                    #expect(found != "shop")
                case ("unsigned", .failure(.token(.algorithmNotAllowed("none")))):
                    #expect(token.hasSuffix("."))
                default:
                    Issue.record("\(kind): unexpected verification result \(result)")
                }
            }
            let after = try fetch(server.port, FaultAPI.grants)
            let (tokens, now) = try FaultAPI.grantTokens(after)
            let token = try #require(tokens.first)
            let claims = try GrantVerifier.verify(token, keys: keys, audience: "shop", now: now)
            #expect(claims.subject == customer)
        }
    }
}

/// `JWSVerifier.verifyGeneral` with each signature's failure as a value, for comparisons.
enum ConfigVerification {
    struct Check {
        var kid: String?
        var failure: JWSVerifier.Failure?
    }

    static func general(_ document: [UInt8], keys: [String: P256PublicKey]) throws -> (payload: [UInt8], [Check]) {
        let (payload, signatures) = try JWSVerifier.verifyGeneral(document, keys: keys, type: .configuration)
        let checks = signatures.map { check in
            switch check.result {
            case .success: Check(kid: check.kid, failure: nil)
            case .failure(let failure): Check(kid: check.kid, failure: failure)
            }
        }
        return (payload, checks)
    }
}
