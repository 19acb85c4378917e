import GronaMockJSON

/// A validated workspace (contract §3): what the server needs typed, plus the configuration body exactly
/// as it is served.
package struct Workspace: Sendable {
    package var key: String
    /// Server-side API keys for the grants endpoint. Never logged, never served.
    package var secretKeys: [String]
    /// Every key signs the configuration; the first is current.
    package var configKeyIDs: [String]
    /// The first key signs grants; all are published.
    package var grantKeyIDs: [String]
    package var grantTTLSeconds: Int64
    package var demoMode: Bool
    package var holdout: Holdout?
    package var campaigns: [Campaign]
    /// The payload body (contract §4) without the fields the server fills in, defaults applied.
    package var config: JSONObject

    package func campaign(_ id: String) -> Campaign? { campaigns.first { $0.id == id } }
}

/// `settings.holdout`: `weight` buckets out of 10,000 see nothing from any campaign (contract §5).
package struct Holdout: Sendable, Equatable {
    package var salt: String
    package var weight: Int64

    package init(salt: String, weight: Int64) {
        self.salt = salt
        self.weight = weight
    }
}

package struct Campaign: Sendable {
    package enum Status: String, Sendable {
        case live, killed
    }

    package enum AssignmentUnit: String, Sendable {
        case install, customer
    }

    package var id: String
    package var status: Status
    package var priority: Int64
    package var placement: String
    package var assignmentUnit: AssignmentUnit
    package var salt: String
    /// Unix seconds; either bound may be open.
    package var startsAt: Int64?
    package var endsAt: Int64?
    package var variants: [Variant]

    package init(
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
    package func isActive(at now: Int64) -> Bool {
        status == .live && (startsAt.map { now >= $0 } ?? true) && (endsAt.map { now < $0 } ?? true)
    }
}

package struct Variant: Sendable {
    package var id: String
    package var weight: Int64
    package var isControl: Bool
    /// The component's type (`banner`, `progress`, `offer`, `message`), if it has one.
    package var componentType: String?
    /// The decision's type, if it has one.
    package var decisionType: String?
    /// The offer's treatment, for grants.
    package var treatment: Treatment?

    package init(
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
package struct Treatment: Sendable, Equatable {
    package var type: String
    package var valueMilli: Int64

    package init(type: String, valueMilli: Int64) {
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
