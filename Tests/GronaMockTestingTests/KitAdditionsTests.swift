import Foundation
import GronaMockTesting
import Testing

/// The kit's calls added so an SDK's tests need no workaround (issue 31): typed sdk-options, the ETag of each
/// encoding, grants for a workspace served from its file, the contract's assignment, and the clock and reset
/// calls no test used before.
@Suite("GronaMockTesting additions")
struct KitAdditionsTests {
    @Test("sdk-options are typed: URLs on the mock and the kid → SPKI pins of the keys that sign")
    func sdkOptions() async throws {
        try await withGronaMock { mock in
            let workspace = try await mock.isolatedWorkspace()
            let options = try await workspace.sdkOptions()
            #expect(options.workspaceKey == workspace.key)
            #expect(options.configurationURL == workspace.configurationURL)
            #expect(options.eventsURL == workspace.eventsURL)
            #expect(options.grantsURL == workspace.grantsURL)
            #expect(options.jwksURL == workspace.jwksURL)
            let verified = try await workspace.verifiedConfiguration()
            #expect(Set(options.configPins.keys) == Set(verified.verifiedKeyIDs))
            #expect(!options.grantPins.isEmpty)
            #expect(options.configPins.values.allSatisfy { Data(base64Encoded: $0) != nil })
        }
    }

    @Test("each encoding has its own ETag; the identity one is what verifiedConfiguration reads")
    func etags() async throws {
        try await withGronaMock { mock in
            let workspace = try mock.workspace("acme-market")
            let etags = try await workspace.configurationETags()
            let identity = try #require(etags.identity)
            let gzip = try #require(etags.gzip)
            #expect(identity != gzip)
            #expect(try await workspace.verifiedConfiguration().etag == identity)
        }
    }

    @Test("grants for a workspace served from its file use the file's secret key")
    func grantsForAFileWorkspace() async throws {
        try await withGronaMock { mock in
            let workspace = try mock.workspace("acme-market")
            #expect(workspace.secretKey == nil)
            var granted: [GronaMockGrant] = []
            for index in 0..<20 { granted += try await workspace.grants(for: "cust_\(index)") }
            #expect(!granted.isEmpty)
        }
    }

    @Test("the expected assignment follows the contract's vectors and the grants the mock issues")
    func assignment() async throws {
        try await withGronaMock { mock in
            let workspace = try mock.workspace("acme-market")
            // Contract §5: bucket("checkout-10-off-1", "cust_123") = 7938, past the control's 5000, so ten-off;
            // bucket("acme-holdout-1", "cust_123") = 5573, not under the holdout's 500.
            let assigned = try await workspace.expectedAssignment(campaign: "checkout-10-off", unit: "cust_123")
            #expect(assigned.arm == "treatment")
            #expect(assigned.variantID == "ten-off")
            #expect(assigned.unit == "customer")
            let grants = try await workspace.grants(for: "cust_123")
            #expect(grants.contains { $0.campaignID == "checkout-10-off" && $0.variantID == "ten-off" })
            let error = await #expect(throws: GronaMockTestError.self) {
                try await workspace.expectedAssignment(campaign: "no-such-campaign", unit: "cust_123")
            }
            #expect(error?.code == "unknown_campaign")
        }
    }

    @Test("an exposure sent in the expected arm is no violation; one in another arm is")
    func funnelInTheExpectedArm() async throws {
        try await withGronaMock { mock in
            let workspace = try await mock.isolatedWorkspace()
            var install = ""
            var assigned: GronaMockAssignment?
            for index in 0..<50 {
                let candidate = try await workspace.expectedAssignment(campaign: "home-hero", unit: "install-\(index)")
                if candidate.arm == "treatment" {
                    (install, assigned) = ("install-\(index)", candidate)
                    break
                }
            }
            let variant = try #require(assigned?.variantID)
            var right = TestKitTests.exposure("e-right")
            right["variantID"] = variant
            try await post([right], to: workspace, installID: install)
            _ = try await workspace.waitForEvents(count: 1, timeout: .seconds(10))
            #expect(try await workspace.violations().isEmpty)

            var wrong = TestKitTests.exposure("e-wrong")
            wrong["variantID"] = "control"
            wrong["arm"] = "control"
            try await post([wrong], to: workspace, installID: install)
            _ = try await workspace.waitForEvents(count: 2, timeout: .seconds(10))
            #expect(!(try await workspace.violations()).isEmpty)
        }
    }

    private func post(_ events: [[String: Any]], to workspace: GronaMockWorkspace, installID: String) async throws {
        let body = try TestKitTests.batch(workspace: workspace.key, events: events, installID: installID)
        let posted = try TestKitTests.post(workspace.eventsURL, body)
        #expect(posted.status == 200, "\(posted.body)")
    }

    @Test("the clock freezes at a date, advances from there, and goes back to the wall clock")
    func clock() async throws {
        try await withGronaMock { mock in
            let date = Date(timeIntervalSince1970: 1_900_000_000)
            try await mock.freezeClock(at: date)
            #expect(try await mock.now() == date)
            try await mock.advanceClock(by: .seconds(3600))
            #expect(try await mock.now() == date.addingTimeInterval(3600))
            try await mock.resetClock()
            #expect(abs(try await mock.now().timeIntervalSinceNow) < 3600)
        }
    }

    @Test("a revived campaign is live again; resetEverything undoes a kill, clears events and the clock")
    func reviveAndResetEverything() async throws {
        try await withGronaMock { mock in
            let workspace = try mock.workspace("acme-market")
            let killed = try await workspace.killCampaign("home-hero")
            #expect(try await status(of: "home-hero", in: workspace) == "killed")
            let revived = try await workspace.reviveCampaign("home-hero")
            #expect(revived > killed)
            #expect(try await status(of: "home-hero", in: workspace) == "live")

            try await workspace.killCampaign("home-hero")
            try await post([TestKitTests.exposure("e-1")], to: workspace, installID: "install-1")
            _ = try await workspace.waitForEvents(count: 1, timeout: .seconds(10))
            try await mock.freezeClock(at: Date(timeIntervalSince1970: 1_900_000_000))
            try await mock.resetEverything()
            #expect(try await status(of: "home-hero", in: workspace) == "live")
            #expect(try await workspace.events().isEmpty)
            #expect(abs(try await mock.now().timeIntervalSinceNow) < 3600)
        }
    }

    /// The campaign's status in the served, verified configuration (a killed campaign stays listed, killed).
    private func status(of campaign: String, in workspace: GronaMockWorkspace) async throws -> String? {
        let payload = try await workspace.verifiedConfiguration().payload
        let root = try JSONSerialization.jsonObject(with: payload) as? [String: Any]
        let campaigns = root?["campaigns"] as? [[String: Any]] ?? []
        return campaigns.first { $0["id"] as? String == campaign }?["status"] as? String ?? "live"
    }
}
