import GronaMock
import GronaMockJSON

/// A verified configuration payload (contract §4) as a simulated install uses it: the campaigns with their
/// targeting and what each variant shows, the holdout, demo mode. Ids are kept JSON-encoded as well, so that
/// events are written by copying bytes.
package struct FleetConfig: Sendable {
    package var revision: Int64
    package var demoMode: Bool
    package var holdout: Holdout?
    package var maxComponentsPerScreen: Int
    package var campaigns: [FleetCampaign]

    /// Why a payload could not be used.
    package struct Unusable: Error, CustomStringConvertible {
        package let description: String
    }

    package init(payload: [UInt8]) throws(Unusable) {
        guard let root = try? JSONParser().parse(payload) else {
            throw Unusable(description: "the payload is not a JSON object")
        }
        try self.init(root: root)
    }

    init(root: JSONValue) throws(Unusable) {
        guard root.objectValue != nil else { throw Unusable(description: "the payload is not a JSON object") }
        guard let revision = root["revision"]?.int64Value else {
            throw Unusable(description: "the payload has no revision")
        }
        self.revision = revision
        demoMode = root["demoMode"]?.boolValue ?? false
        let settings = root["settings"]
        if let salt = settings?["holdout"]?["salt"]?.stringValue,
            let weight = settings?["holdout"]?["weight"]?.int64Value
        {
            holdout = Holdout(salt: salt, weight: weight)
        }
        maxComponentsPerScreen = Int(min(max(settings?["maxComponentsPerScreen"]?.int64Value ?? 3, 1), 10))
        campaigns = (root["campaigns"]?.arrayValue ?? []).compactMap(FleetCampaign.init)
    }

    package init(revision: Int64, demoMode: Bool, holdout: Holdout?, campaigns: [FleetCampaign]) {
        self.revision = revision
        self.demoMode = demoMode
        self.holdout = holdout
        maxComponentsPerScreen = 3
        self.campaigns = campaigns
    }
}

package struct FleetCampaign: Sendable {
    package var id: String
    package var isLive: Bool
    package var priority: Int64
    package var placement: Placement
    package var unit: Campaign.AssignmentUnit
    package var salt: String
    package var startsAt: Int64?
    package var endsAt: Int64?
    package var targeting: TargetingRule?
    package var variants: [FleetVariant]
    /// `"campaignID":"…"` and `"placement":"…"` as bytes, ready to copy into events.
    package var idJSON: [UInt8]
    package var placementJSON: [UInt8]

    /// Nil for a campaign an install could not run (an unknown placement or unit): it is skipped, as an SDK
    /// skips what it does not understand.
    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, let placement = json["placement"]?.stringValue.flatMap(Placement.known),
            let unit = json["assignment"]?["unit"]?.stringValue.flatMap(Campaign.AssignmentUnit.known),
            let salt = json["assignment"]?["salt"]?.stringValue
        else { return nil }
        let status = json["status"]?.stringValue.map(Campaign.Status.init(rawValue:))
        self.init(
            id: id, isLive: status == .live, priority: json["priority"]?.int64Value ?? 0,
            placement: placement, unit: unit, salt: salt, startsAt: json["schedule"]?["startsAt"]?.int64Value,
            endsAt: json["schedule"]?["endsAt"]?.int64Value, targeting: json["targeting"].map(TargetingRule.init),
            variants: (json["variants"]?.arrayValue ?? []).compactMap(FleetVariant.init))
    }

    package init(
        id: String, isLive: Bool = true, priority: Int64 = 0, placement: Placement,
        unit: Campaign.AssignmentUnit = .install, salt: String, startsAt: Int64? = nil, endsAt: Int64? = nil,
        targeting: TargetingRule? = nil, variants: [FleetVariant]
    ) {
        self.id = id
        self.isLive = isLive
        self.priority = priority
        self.placement = placement
        self.unit = unit
        self.salt = salt
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.targeting = targeting
        self.variants = variants
        idJSON = JSONBytes.quoted(id)
        placementJSON = JSONBytes.quoted(placement.rawValue)
    }

    /// Live and inside its schedule at `now` (Unix seconds).
    package func isActive(at now: Int64) -> Bool {
        isLive && (startsAt.map { now >= $0 } ?? true) && (endsAt.map { now < $0 } ?? true)
    }

    /// The variant of contract §5 for `unit`: the first whose running weight sum exceeds the unit's bucket.
    package func variantIndex(for unit: String) -> Int? {
        let bucket = Int64(Assignment.bucket(salt: salt, unit: unit))
        var sum: Int64 = 0
        for (index, variant) in variants.enumerated() {
            sum += variant.weight
            if sum > bucket { return index }
        }
        return nil
    }
}

package struct FleetVariant: Sendable {
    package var id: String
    package var weight: Int64
    package var content: VariantContent
    package var idJSON: [UInt8]

    package var isControl: Bool { content == .control }

    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, let weight = json["weight"]?.int64Value else { return nil }
        self.init(id: id, weight: weight, content: VariantContent(json: json))
    }

    package init(id: String, weight: Int64, content: VariantContent) {
        self.id = id
        // Weights are buckets out of 10,000 (contract §4); a server that sends more must not trap the sum.
        self.weight = min(max(weight, 0), 10_000)
        self.content = content
        idJSON = JSONBytes.quoted(id)
    }
}

/// JSON string literals as bytes.
enum JSONBytes {
    static func quoted(_ text: String) -> [UInt8] { Array(JSONText.quoted(text).utf8) }
}
