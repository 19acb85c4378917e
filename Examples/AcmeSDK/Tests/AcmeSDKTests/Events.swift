import GronaMockTesting

/// Events as the SDK builds them (contract §7).
enum Events {
    static func exposure(_ id: String, visit: String = "v-1", variant: String = "spring") -> [String: any Sendable] {
        [
            "eventID": id, "type": "exposure", "timestamp": 1_764_478_799_001, "sessionID": "s-1",
            "placement": "home_top", "screen": ["type": "home"], "visitID": visit, "campaignID": "home-hero",
            "variantID": variant, "arm": "treatment",
        ]
    }

    /// An install the contract's assignment (§5) puts in a treatment of home-hero, with its variant: the
    /// install whose exposures a correct SDK sends (in control or the holdout nothing is shown).
    static func treatedInstall(in workspace: GronaMockWorkspace) async throws -> (installID: String, variant: String) {
        for index in 0..<100 {
            let assigned = try await workspace.expectedAssignment(campaign: "home-hero", unit: "install-\(index)")
            if assigned.arm == "treatment", let variant = assigned.variantID { return ("install-\(index)", variant) }
        }
        throw Unassigned()
    }

    /// No install among the first hundred is treated (the workspace's weights changed).
    struct Unassigned: Error {}
}
