import Foundation
import GronaMockJSON
import GronaMockTestSupport
import Testing

/// The grant log across instances (issue 15): an offer shown on B whose grant A issued is no
/// `offer_without_grant`, and a reset on A takes the grant from B too.
@Suite(
    "Cluster: grants issued on one instance, checked on another", .serialized,
    .enabled(if: TestPostgres.isAvailable, TestPostgres.unavailableReason))
struct ClusterGrantTests {
    /// One grant's claims, as the SDK reads them from the token's payload.
    private struct Claims {
        var customer: String
        var campaign: String
        var variant: String
        var placement: String
    }

    /// Asks `instance` for `customer`'s grants; the first one's claims, or nil when the customer holds none
    /// (held out, or in the control of every offer).
    private static func firstGrant(_ instance: ClusterInstance, customer: String) throws -> Claims? {
        let body = #"{"customerID":"\#(customer)"}"#
        let response = try fetch(
            instance.port,
            "POST /v1/mobile/grants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_test_acme_market_local\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        guard response.status == 200,
            let token = try JSONParser().parse(response.body)["grants"]?.arrayValue?.first?.stringValue
        else { return nil }
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        guard let bytes = Data(base64Encoded: payload) else { return nil }
        let claims = try JSONParser().parse(Array(bytes))
        guard let campaign = claims["campaignID"]?.stringValue, let variant = claims["variantID"]?.stringValue,
            let placement = claims["placement"]?.stringValue
        else { return nil }
        return Claims(customer: customer, campaign: campaign, variant: variant, placement: placement)
    }

    /// The offer shown: an `exposure` of the granted campaign and variant, by the granted customer.
    private static func exposure(_ claims: Claims) -> String {
        #"{"workspaceKey":"acme-market","installID":"install-g","sdk":{"platform":"ios","version":"1.4.0"},"#
            + #""app":{"id":"com.acme","version":"1.0"},"sentAt":1764478800123,"events":[{"eventID":"offer-1","#
            + #""type":"exposure","timestamp":1764478799001,"sessionID":"s-1","customerID":"\#(claims.customer)","#
            + #""placement":"\#(claims.placement)","screen":{"type":"checkout"},"visitID":"v-1","#
            + #""campaignID":"\#(claims.campaign)","variantID":"\#(claims.variant)","arm":"treatment"}]}"#
    }

    /// How many `offer_without_grant` violations `instance` reports; nil when it does not answer 200.
    private static func missingGrants(_ instance: ClusterInstance) throws -> Int? {
        let response = try instance.get("/_mock/events/violations?workspace=acme-market")
        guard response.status == 200 else { return nil }
        let violations = try JSONParser().parse(response.body)["violations"]?.arrayValue ?? []
        return violations.filter { $0["rule"]?.stringValue == "offer_without_grant" }.count
    }

    @Test("a grant A issued covers the offer B stores; after a reset on A, B reports it again")
    func grantIssuedOnAnotherInstance() throws {
        let store = try TestPostgres.freshURL()
        let a = try ClusterInstance(store: store)
        let b = try ClusterInstance(store: store)
        var found: Claims?
        for index in 0..<40 where found == nil {
            found = try Self.firstGrant(a, customer: "cust_cluster_\(index)")
        }
        let claims = try #require(found, "no customer of the first 40 holds a grant")

        let stored = try JSONParser().parse(try b.post("/v1/mobile/events", Self.exposure(claims)).body)
        #expect(stored["accepted"]?.int64Value == 1)
        #expect(eventually(seconds: 5) { (try? Self.missingGrants(b)) == 0 }, "\(b.logText)")

        // The control: the same offer without its grant. A reset of the workspace on A deletes the event and
        // the grant; the event sent again is reported by B once B has applied the reset.
        #expect(try a.post("/_mock/reset?workspace=acme-market").status == 200)
        let again = try JSONParser().parse(try b.post("/v1/mobile/events", Self.exposure(claims)).body)
        #expect(again["accepted"]?.int64Value == 1)
        #expect(eventually(seconds: 5) { (try? Self.missingGrants(b)) == 1 }, "\(b.logText)")

        // Issued again on A after the reset, it is shared again.
        #expect(try Self.firstGrant(a, customer: claims.customer) != nil)
        #expect(eventually(seconds: 5) { (try? Self.missingGrants(b)) == 0 }, "\(b.logText)")
    }
}
