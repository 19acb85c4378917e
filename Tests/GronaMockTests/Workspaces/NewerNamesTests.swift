import Foundation
import GronaMockJSON
import Testing

@testable import GronaMock

/// Names from a newer SDK or service pass through the engine as they came, where the contract lets them
/// (contract §4: a decision type a newer SDK may know).
@Suite("Names from a newer SDK pass through")
struct NewerNamesTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("acme-market's carousel decision is a warning, kept in the model and served exactly as written")
    func newerDecisionTypeIsServed() throws {
        let file = Self.repository.appendingPathComponent("workspaces/acme-market.json")
        let outcome = WorkspaceValidator.validate(
            Array(try Data(contentsOf: file)), expectedKey: "acme-market",
            keyIDs: [
                "acme-market-2026-10", "acme-market-2027-01", "acme-market-grants-2026-10",
                "acme-market-grants-2027-01",
            ])
        #expect(!outcome.hasErrors, "\(outcome.problems)")
        #expect(outcome.problems.contains { $0.severity == .warning && $0.reason.contains("\"carousel\"") })
        let workspace = try #require(outcome.workspace)
        let variants = try #require(workspace.campaign("home-feed-picks")?.variants)
        #expect(variants.map(\.decisionType) == [nil, .rail, .unknown("carousel")])

        let payload = try JSONParser().parse(
            ConfigurationSigner.payload(for: workspace, revision: 1, issuedAt: 1_764_478_800))
        let campaign = payload["campaigns"]?.arrayValue?.first { $0["id"] == "home-feed-picks" }
        #expect(campaign?["variants"]?[2]?["decision"]?["type"] == "carousel")
    }

    @Test("a grant's treatment type this version does not know is read, and written again, unchanged")
    func newerTreatmentTypeInAGrant() throws {
        let claims: JSONValue = [
            "iss": "grona-mock", "aud": "acme-market", "sub": "cust_123", "jti": "grt_1", "iat": 1_764_478_800,
            "nbf": 1_764_478_800, "exp": 1_764_482_400, "campaignID": "checkout-10-off", "variantID": "ten-off",
            "placement": "checkout_above_pay", "treatment": ["type": "cashback", "valueMilli": 5000], "demo": false,
        ]
        let read = try #require(GrantClaims(json: claims.serialized()))
        #expect(read.treatment == Treatment(type: .unknown("cashback"), valueMilli: 5000))
        #expect(try JSONParser().parse(read.json) == claims)
    }
}
