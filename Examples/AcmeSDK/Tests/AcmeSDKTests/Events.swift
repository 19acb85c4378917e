/// Events as the SDK builds them (contract §7).
enum Events {
    static func exposure(_ id: String, visit: String = "v-1") -> [String: any Sendable] {
        [
            "eventID": id, "type": "exposure", "timestamp": 1_764_478_799_001, "sessionID": "s-1",
            "placement": "home_top", "screen": ["type": "home"], "visitID": visit, "campaignID": "home-hero",
            "variantID": "spring", "arm": "treatment",
        ]
    }
}
