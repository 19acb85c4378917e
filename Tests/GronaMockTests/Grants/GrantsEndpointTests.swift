import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// A fixture workspace `shop` (MockFixture.workspace): holdout salt "h-1" weight 500, and the offer
/// campaign checkout-10-off (customer unit, salt checkout-10-off-1, control 5000 / ten-off 5000).
@Suite("POST /v1/mobile/grants")
struct GrantsEndpointTests {
    static let secret = "sk_test_shop_secret"

    /// Customers chosen by the contract's assignment function, which AssignmentTests pins to its vectors.
    static func customer(offer: Bool, heldOut: Bool = false) -> String {
        for index in 0..<100_000 {
            let id = "cust_\(index)"
            let inHoldout = Assignment.bucket(salt: "h-1", unit: id) < 500
            let inOffer = Assignment.bucket(salt: "checkout-10-off-1", unit: id) >= 5000
            if inHoldout == heldOut && (heldOut || inOffer == offer) { return id }
        }
        return "none"
    }

    static func request(
        _ body: String, secret: String? = secret, contentType: String = "application/json",
        target: String = "/v1/mobile/grants"
    ) -> String {
        var head =
            "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n"
        if let secret { head += "Authorization: Bearer \(secret)\r\n" }
        return head + "\r\n" + body
    }

    private func grants(_ port: Int, customer: String) throws -> (tokens: [String], serverTime: Int64) {
        let response = try fetch(port, Self.request("{\"customerID\":\"\(customer)\"}"))
        #expect(response.status == 200)
        #expect(response.header("Cache-Control") == "no-store")
        let body = try JSONParser().parse(response.body)
        let tokens = body["grants"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return (tokens, body["serverTime"]?.int64Value ?? 0)
    }

    @Test("a customer in the offer variant gets one grant with the contract's header and claims")
    func offerCustomer() throws {
        let fixture = try MockFixture.standard()
        let customer = Self.customer(offer: true)
        try fixture.withServer { server in
            let (tokens, serverTime) = try grants(server.port, customer: customer)
            #expect(tokens.count == 1)
            let token = try #require(tokens.first)
            let header = try JSONParser().parse(Base64.urlDecode(token.split(separator: ".")[0]) ?? [])
            #expect(header == ["alg": "ES256", "kid": "grt-1", "typ": "grona-grant+jwt"])
            let claims = try GrantVerifier.verify(
                token, keys: try fixture.publicKeys(), audience: "shop", now: serverTime)
            #expect(claims.issuer == "grona-mock")
            #expect(claims.subject == customer)
            #expect(claims.campaignID == "checkout-10-off")
            #expect(claims.variantID == "ten-off")
            #expect(claims.placement == "checkout_above_pay")
            #expect(claims.treatment == Treatment(type: .percentOff, valueMilli: 10_000))
            #expect(claims.demo == false)
            #expect(claims.issuedAt == serverTime)
            #expect(claims.notBefore == serverTime / 3600 * 3600)
            #expect(claims.expiresAt == claims.notBefore + 3600)
            #expect(claims.grantID.hasPrefix("grt_") && claims.grantID.count == 36)
        }
    }

    @Test("control and holdout customers get an empty list")
    func noGrant() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let control = try grants(server.port, customer: Self.customer(offer: false))
            let heldOut = try grants(server.port, customer: Self.customer(offer: true, heldOut: true))
            #expect(control.tokens.isEmpty)
            #expect(heldOut.tokens.isEmpty)
        }
    }

    @Test("a killed campaign and one outside its schedule issue nothing")
    func killedAndUnscheduled() throws {
        let fixture = try MockFixture.standard()
        let customer = Self.customer(offer: true)
        let base = MockFixture.workspace("shop")
        try fixture.writeWorkspace(
            "shop",
            base.replacingOccurrences(of: #""priority": 100"#, with: #""status": "killed", "priority": 100"#)
                .replacingOccurrences(
                    of: #""id": "checkout-10-off", "status": "live","#, with: #""id": "checkout-10-off","#))
        try fixture.withServer { server in
            let killed = try grants(server.port, customer: customer)
            #expect(killed.tokens.isEmpty)
        }
        let future = Int(Date().timeIntervalSince1970) + 86_400
        try fixture.writeWorkspace(
            "shop",
            base.replacingOccurrences(
                of: #""placement": "checkout_above_pay","#,
                with: #""placement": "checkout_above_pay", "schedule": {"startsAt": \#(future)},"#))
        try fixture.withServer { server in
            let early = try grants(server.port, customer: customer)
            #expect(early.tokens.isEmpty)
            server.clock.advance(byMilliseconds: 2 * 86_400_000)
            let started = try grants(server.port, customer: customer)
            #expect(started.tokens.count == 1)
        }
    }

    @Test(
        "two calls in one window: same jti, nbf and exp, different tokens, both valid; the next window is a new grant")
    func grantWindows() throws {
        let fixture = try MockFixture.standard()
        let customer = Self.customer(offer: true)
        try fixture.withServer { server in
            server.clock.freeze(atMilliseconds: 1_764_478_800_000 + 1_000_000)
            let keys = try fixture.publicKeys()
            let first = try grants(server.port, customer: customer)
            let second = try grants(server.port, customer: customer)
            let a = try GrantVerifier.verify(first.tokens[0], keys: keys, audience: "shop", now: first.serverTime)
            let b = try GrantVerifier.verify(second.tokens[0], keys: keys, audience: "shop", now: second.serverTime)
            #expect(first.tokens[0] != second.tokens[0])
            #expect(a.grantID == b.grantID)
            #expect(a.notBefore == b.notBefore)
            #expect(a.expiresAt == b.expiresAt)
            server.clock.advance(byMilliseconds: 3_600_000)
            let next = try grants(server.port, customer: customer)
            let c = try GrantVerifier.verify(next.tokens[0], keys: keys, audience: "shop", now: next.serverTime)
            #expect(c.grantID != a.grantID)
            #expect(c.notBefore == a.expiresAt)
        }
    }

    @Test("missing, wrong and malformed secret keys are 401 with WWW-Authenticate: Bearer")
    func unauthorized() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            for secret in [nil, "sk_test_wrong_secret", "sk_test_shop_secre", "sk_test_shop_secrett"] {
                let response = try fetch(server.port, Self.request("{\"customerID\":\"c\"}", secret: secret))
                #expect(response.status == 401)
                #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
                #expect(response.text.contains("\"code\":\"unauthorized\""))
                #expect(!response.text.contains(Self.secret))
            }
            let basic =
                "POST /v1/mobile/grants HTTP/1.1\r\nHost: x\r\nAuthorization: Basic \(Self.secret)\r\nContent-Length: 0\r\n\r\n"
            let basicResponse = try fetch(server.port, basic)
            #expect(basicResponse.status == 401)
        }
    }

    @Test("a secret key in the query string is refused, even with a valid Authorization header")
    func secretInQuery() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            for target in [
                "/v1/mobile/grants?key=\(Self.secret)", "/v1/mobile/grants?x=\(Self.secret)",
                "/v1/mobile/grants?access_token=t",
            ] {
                let response = try fetch(server.port, Self.request("{\"customerID\":\"c\"}", target: target))
                #expect(response.status == 400)
                #expect(response.text.contains("\"code\":\"secret_in_query\""))
                #expect(!response.text.contains(Self.secret))
            }
        }
    }

    /// Bodies the grants endpoint refuses, with the content type sent, the status and the error code.
    static let badRequestRows: [(body: String, contentType: String, status: Int, code: String)] = [
        ("{\"customerID\":\"\"}", "application/json", 400, "invalid_customer_id"),
        ("{}", "application/json", 400, "invalid_customer_id"),
        ("{\"customerID\":123}", "application/json", 400, "invalid_customer_id"),
        (
            "{\"customerID\":\"\(String(repeating: "c", count: 129))\"}", "application/json", 400,
            "invalid_customer_id"
        ),
        ("{\"customerID\":\"a\\u0000b\"}", "application/json", 400, "invalid_customer_id"),
        ("{\"customerID\":", "application/json", 400, "malformed_json"),
        ("[\"cust_1\"]", "application/json", 400, "malformed_json"),
        ("customerID=cust_1", "application/x-www-form-urlencoded", 415, "unsupported_media_type"),
        (
            "{\"customerID\":\"c\",\"pad\":\"\(String(repeating: "x", count: 17_000))\"}", "application/json", 413,
            "payload_too_large"
        ),
    ]

    @Test("bad requests get their status and code (a table, put to one engine in process)")
    func badRequests() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            for row in Self.badRequestRows {
                let request = Self.request(row.body, contentType: row.contentType)
                let answer = try #require(server.exchange(request), "no answer to \(row.body.prefix(60))")
                let response = RawClient.Response(answer)
                #expect(response.status == row.status, "body \(row.body.prefix(60))")
                #expect(response.text.contains("\"code\":\"\(row.code)\""), "body \(row.body.prefix(60))")
            }
        }
    }

    @Test("other methods are 405 with Allow: POST")
    func methodNotAllowed() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try fetch(server.port, "GET /v1/mobile/grants HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(response.status == 405)
            #expect(response.header("Allow") == "POST")
        }
    }
}
