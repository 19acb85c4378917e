/// A campaign as the SDK reads it from the payload (contract §4). Reading is lenient per campaign: a campaign
/// the SDK cannot read (an unknown placement, a missing id) is left out, and the rest of the configuration is
/// used; a variant whose type is unknown is kept and skipped when it would be shown.
public struct Campaign: Sendable {
    public var id: String
    /// Position in the configuration: the tie-break after priority.
    public var index: Int
    public var isLive: Bool
    public var priority: Int64
    public var placement: Placement
    public var unit: AssignmentUnit
    public var salt: String
    /// Unix seconds, `startsAt` inclusive and `endsAt` exclusive; either may be absent.
    public var startsAt: Int64?
    public var endsAt: Int64?
    /// nil when the campaign has no targeting: every visit matches.
    public var targeting: TargetingRule?
    public var variants: [Variant]

    init?(json: JSON, index: Int) {
        guard let id = json["id"]?.stringValue, Identifiers.isCampaignID(id),
            let placement = json["placement"]?.stringValue.flatMap(Placement.init(rawValue:)),
            let unit = json["assignment"]?["unit"]?.stringValue.flatMap(AssignmentUnit.init(rawValue:)),
            let salt = json["assignment"]?["salt"]?.stringValue,
            let variants = json["variants"]?.arrayValue
        else { return nil }
        self.id = id
        self.index = index
        self.isLive = json["status"]?.stringValue == "live"
        self.priority = json["priority"]?.int64Value ?? 0
        self.placement = placement
        self.unit = unit
        self.salt = salt
        // Unix seconds up to the year 5138: anything larger is not a time, and would overflow in milliseconds.
        let times = 0...99_999_999_999 as ClosedRange<Int64>
        self.startsAt = json["schedule"]?["startsAt"]?.int64Value
        self.endsAt = json["schedule"]?["endsAt"]?.int64Value
        guard startsAt.map(times.contains) ?? true, endsAt.map(times.contains) ?? true else { return nil }
        self.targeting = json["targeting"].map(TargetingRule.init(json:))
        self.variants = variants.compactMap(Variant.init(json:))
        guard self.variants.count == variants.count, !self.variants.isEmpty else { return nil }
    }

    /// Whether `nowMs` (the SDK's clock) is inside the schedule.
    public func isScheduled(atMs nowMs: Int64) -> Bool {
        if let startsAt, nowMs < startsAt * 1000 { return false }
        if let endsAt, nowMs >= endsAt * 1000 { return false }
        return true
    }

    public func variant(_ id: String) -> Variant? {
        variants.first { $0.id == id }
    }
}

/// One arm of a campaign: a control, or exactly one component or decision (contract §4).
public struct Variant: Sendable {
    public var id: String
    public var weight: Int64
    public var content: VariantContent

    init?(json: JSON) {
        guard let id = json["id"]?.stringValue, Identifiers.isCampaignID(id), let weight = json["weight"]?.int64Value,
            (0...10_000).contains(weight)
        else { return nil }
        self.id = id
        self.weight = weight
        let component = json["component"]
        let decision = json["decision"]
        switch (json["control"]?.boolValue == true, component, decision) {
        case (true, nil, nil): content = .control
        case (false, let body?, nil): content = .content(Content(kind: .component, body: body))
        case (false, nil, let body?): content = .content(Content(kind: .decision, body: body))
        default: return nil
        }
    }

    public var isControl: Bool {
        if case .control = content { return true }
        return false
    }

    public var shownContent: Content? {
        if case .content(let content) = content { return content }
        return nil
    }
}

public enum VariantContent: Sendable {
    case control
    case content(Content)
}

/// A component or decision exactly as the configuration has it, with what the SDK needs to know of it.
public struct Content: Sendable {
    public enum Kind: String, Sendable {
        case component, decision
    }

    public var kind: Kind
    public var body: JSON

    /// The `type` field as written, known to this SDK or not.
    public var typeName: String { body["type"]?.stringValue ?? "" }

    /// Whether this SDK knows how to show it (contract §4: a newer type is treated as no content).
    public var isKnownType: Bool {
        switch kind {
        case .component: ComponentType(rawValue: typeName) != nil
        case .decision: DecisionType(rawValue: typeName) != nil
        }
    }

    public var isOffer: Bool { kind == .component && typeName == ComponentType.offer.rawValue }

    /// An offer's treatment: its type and value in thousandths.
    public var treatment: (type: String, valueMilli: Int64)? {
        guard let type = body["treatment"]?["type"]?.stringValue,
            let value = body["treatment"]?["valueMilli"]?.int64Value
        else { return nil }
        return (type, value)
    }

    /// Whether every image it names is one the SDK may load: `asset://img/<path>`, or `https` on a host of
    /// `settings.imageHosts` (contract §4).
    public func imagesAllowed(hosts: [String]) -> Bool {
        guard let image = body["image"] else { return true }
        guard let text = image.stringValue else { return false }
        if text.hasPrefix("asset://img/") { return text.count > "asset://img/".count }
        let prefix = "https://"
        guard text.lowercased().hasPrefix(prefix) else { return false }
        let rest = text.dropFirst(prefix.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // No userinfo or port tricks: `https://images.acme.example@evil.example/` names evil.example.
        guard !authority.contains("@") else { return false }
        let host = authority.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        return hosts.contains { $0.lowercased() == host.lowercased() }
    }
}
