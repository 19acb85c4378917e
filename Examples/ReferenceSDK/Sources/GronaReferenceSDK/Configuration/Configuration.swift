/// The configuration payload as the SDK uses it (contract §4), read from a verified document.
public struct Configuration: Sendable {
    public struct PreviewPin: Sendable {
        public var token: String
        public var campaignID: String
        public var variantID: String
    }

    public struct Holdout: Sendable {
        public var salt: String
        public var weight: Int64
    }

    public var workspaceKey: String
    public var revision: Int64
    public var demoMode: Bool
    /// 1 to 10, 3 when absent (contract §4).
    public var maxComponentsPerScreen: Int
    public var imageHosts: [String]
    public var holdout: Holdout?
    public var campaigns: [Campaign]
    public var previews: [PreviewPin]
    /// Content types in the document this SDK does not know (a newer SDK's): such variants are skipped.
    public var unknownTypes: [String]

    /// Reads a payload; nil when it is not a configuration at all (no workspace key or revision).
    init?(payload: JSON) {
        guard let workspaceKey = payload["workspaceKey"]?.stringValue, let revision = payload["revision"]?.int64Value
        else { return nil }
        self.workspaceKey = workspaceKey
        self.revision = revision
        demoMode = payload["demoMode"]?.boolValue ?? false
        let settings = payload["settings"]
        let cap = settings?["maxComponentsPerScreen"]?.int64Value ?? 3
        maxComponentsPerScreen = Int(min(max(cap, 1), 10))
        imageHosts = settings?["imageHosts"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let salt = settings?["holdout"]?["salt"]?.stringValue,
            let weight = settings?["holdout"]?["weight"]?.int64Value
        {
            holdout = Holdout(salt: salt, weight: weight)
        }
        let campaignsJSON = payload["campaigns"]?.arrayValue ?? []
        campaigns = campaignsJSON.enumerated().compactMap { Campaign(json: $1, index: $0) }
        previews = (payload["previews"]?.arrayValue ?? []).compactMap { pin in
            guard let token = pin["token"]?.stringValue, let campaignID = pin["campaignID"]?.stringValue,
                let variantID = pin["variantID"]?.stringValue
            else { return nil }
            return PreviewPin(token: token, campaignID: campaignID, variantID: variantID)
        }
        unknownTypes = campaigns.flatMap { campaign in
            campaign.variants.compactMap { variant in
                variant.shownContent.flatMap { $0.isKnownType ? nil : $0.typeName }
            }
        }
    }

    /// A configuration with no campaigns, for a visit that starts before any configuration was loaded.
    init(emptyFor workspaceKey: String) {
        self.workspaceKey = workspaceKey
        revision = 0
        demoMode = false
        maxComponentsPerScreen = 3
        imageHosts = []
        campaigns = []
        previews = []
        unknownTypes = []
    }

    public func campaign(_ id: String) -> Campaign? {
        campaigns.first { $0.id == id }
    }

    /// Whether this configuration still shows `campaignID`: listed and live. A campaign it kills or no longer
    /// lists leaves the screen at once (service protocol, "Kills and other changes").
    public func keepsLive(_ campaignID: String) -> Bool {
        campaign(campaignID)?.isLive == true
    }
}
