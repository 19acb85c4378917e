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
    /// `status` (contract §4): `killed` is the kill switch.
    package enum Status: Vocabulary {
        case live, killed
        case unknown(String)

        package static let allCases: [Status] = [.live, .killed]
        package static let noun = "status"

        package var rawValue: String {
            switch self {
            case .live: "live"
            case .killed: "killed"
            case .unknown(let name): name
            }
        }
    }

    /// `assignment.unit` (contract §4): the SDK's install id, or the identified customer's id.
    package enum AssignmentUnit: Vocabulary {
        case install, customer
        case unknown(String)

        package static let allCases: [AssignmentUnit] = [.install, .customer]
        package static let noun = "assignment unit"

        package var rawValue: String {
            switch self {
            case .install: "install"
            case .customer: "customer"
            case .unknown(let name): name
            }
        }
    }

    package var id: String
    package var status: Status
    package var priority: Int64
    /// `unknown("")` when the campaign's placement was not valid (a workspace served deliberately invalid).
    package var placement: Placement
    package var assignmentUnit: AssignmentUnit
    package var salt: String
    /// Unix seconds; either bound may be open.
    package var startsAt: Int64?
    package var endsAt: Int64?
    package var variants: [Variant]

    package init(
        id: String, status: Status, priority: Int64, placement: Placement, assignmentUnit: AssignmentUnit, salt: String,
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
    /// The component's type, if it has one.
    package var componentType: ComponentType?
    /// The decision's type, if it has one (perhaps a newer SDK's, kept as written).
    package var decisionType: DecisionType?
    /// The offer's treatment, for grants.
    package var treatment: Treatment?

    package init(
        id: String, weight: Int64, isControl: Bool, componentType: ComponentType? = nil,
        decisionType: DecisionType? = nil,
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
    package var type: TreatmentType
    package var valueMilli: Int64

    package init(type: TreatmentType, valueMilli: Int64) {
        self.type = type
        self.valueMilli = valueMilli
    }
}
