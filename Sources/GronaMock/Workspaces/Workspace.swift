import GronaHTTP
import GronaJSON

/// A validated workspace (contract §3): what the server needs typed, plus the configuration body exactly
/// as it is served.
public struct Workspace: Sendable {
    public var key: String
    /// Server-side API keys for the grants endpoint. Never logged, never served.
    public var secretKeys: [String]
    /// Every key signs the configuration; the first is current.
    public var configKeyIDs: [String]
    /// The first key signs grants; all are published.
    public var grantKeyIDs: [String]
    public var grantTTLSeconds: Int64
    public var demoMode: Bool
    public var holdout: Holdout?
    public var campaigns: [Campaign]
    /// The payload body (contract §4) without the fields the server fills in, defaults applied.
    public var config: JSONObject

    public func campaign(_ id: String) -> Campaign? { campaigns.first { $0.id == id } }
}

/// `settings.holdout`: `weight` buckets out of 10,000 see nothing from any campaign (contract §5).
public struct Holdout: Sendable, Equatable {
    public var salt: String
    public var weight: Int64

    public init(salt: String, weight: Int64) {
        self.salt = salt
        self.weight = weight
    }
}

public struct Campaign: Sendable {
    public enum Status: String, Sendable {
        case live, killed
    }

    public enum AssignmentUnit: String, Sendable {
        case install, customer
    }

    public var id: String
    public var status: Status
    public var priority: Int64
    public var placement: String
    public var assignmentUnit: AssignmentUnit
    public var salt: String
    /// Unix seconds; either bound may be open.
    public var startsAt: Int64?
    public var endsAt: Int64?
    public var variants: [Variant]

    public init(
        id: String, status: Status, priority: Int64, placement: String, assignmentUnit: AssignmentUnit, salt: String,
        startsAt: Int64?, endsAt: Int64?, variants: [Variant]
    ) {
        self.id = id
        self.status = status
        self.priority = priority
        self.placement = placement
        self.assignmentUnit = assignmentUnit
        self.salt = salt
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.variants = variants
    }

    /// Live and inside its schedule at `now` (Unix seconds).
    public func isActive(at now: Int64) -> Bool {
        status == .live && (startsAt.map { now >= $0 } ?? true) && (endsAt.map { now < $0 } ?? true)
    }
}

public struct Variant: Sendable {
    public var id: String
    public var weight: Int64
    public var isControl: Bool
    /// The component's type (`banner`, `progress`, `offer`, `message`), if it has one.
    public var componentType: String?
    /// The decision's type, if it has one.
    public var decisionType: String?
    /// The offer's treatment, for grants.
    public var treatment: Treatment?

    public init(
        id: String, weight: Int64, isControl: Bool, componentType: String? = nil, decisionType: String? = nil,
        treatment: Treatment? = nil
    ) {
        self.id = id
        self.weight = weight
        self.isControl = isControl
        self.componentType = componentType
        self.decisionType = decisionType
        self.treatment = treatment
    }
}

/// An offer's treatment (contract §4): `valueMilli` in thousandths (10000 with `percent_off` is 10 %).
public struct Treatment: Sendable, Equatable {
    public var type: String
    public var valueMilli: Int64

    public init(type: String, valueMilli: Int64) {
        self.type = type
        self.valueMilli = valueMilli
    }
}

/// The closed vocabularies of contract §4.
enum Vocabulary {
    static let placements = Placement.allCases.map(\.rawValue)
    static let screenTypes = [
        "home", "categories", "search", "cart", "checkout", "category", "product", "order_confirmation", "other",
    ]
    static let treatmentTypes = ["percent_off", "amount_off", "free_delivery"]
    static let componentTypes = ["banner", "progress", "offer", "message"]
    static let decisionTypes = ["rail", "bundle", "product_card", "substitute"]
    static let routeTypes = ["home", "product", "category", "cart", "checkout", "deals"]
    static let tones = ["info", "success", "warning"]
}
