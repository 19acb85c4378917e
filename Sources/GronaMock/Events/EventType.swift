/// The event types of contract §7, declared once. Adding one means adding its case here, its checks in
/// `EventValidator`, and its entry in docs/schemas/events-batch.schema.json (a test walks the cases). A type
/// this version does not know is `unknown`: the validator rejects it, and anything that reads a stored event
/// keeps its name.
package enum EventType: Vocabulary {
    case eligible
    case anchorVisible
    case exposure
    case served
    case action
    case dismiss
    case purchase
    case unknown(String)

    package static let allCases: [EventType] = [
        .eligible, .anchorVisible, .exposure, .served, .action, .dismiss, .purchase,
    ]
    package static let noun = "event type"

    package var rawValue: String {
        switch self {
        case .eligible: "eligible"
        case .anchorVisible: "anchor_visible"
        case .exposure: "exposure"
        case .served: "served"
        case .action: "action"
        case .dismiss: "dismiss"
        case .purchase: "purchase"
        case .unknown(let name): name
        }
    }

    /// The known types that report on one placement (every one but `purchase`).
    package var isPlacementEvent: Bool {
        switch self {
        case .eligible, .anchorVisible, .exposure, .served, .action, .dismiss: true
        case .purchase, .unknown: false
        }
    }
}

/// The arms of contract §5, as events spell them, declared once: the validator accepts these, the violation
/// rules and the funnels compare against them, and `grona-mock load` writes them.
package enum Arm: Vocabulary {
    case treatment
    case control
    /// The workspace-wide holdout, checked before any campaign's assignment.
    case holdout
    case unknown(String)

    package static let allCases: [Arm] = [.treatment, .control, .holdout]
    package static let noun = "arm"

    package var rawValue: String {
        switch self {
        case .treatment: "treatment"
        case .control: "control"
        case .holdout: "holdout"
        case .unknown(let name): name
        }
    }

    /// Nothing is shown in this arm (contract §5), so nothing is exposed or served there.
    package var showsNothing: Bool {
        switch self {
        case .control, .holdout: true
        case .treatment, .unknown: false
        }
    }
}

/// The placements of contract §3, declared once (workspaces and events both name them). The set is closed
/// ("any other name is an error"): `unknown` only carries a wrong name to its error.
package enum Placement: Vocabulary {
    case homeTop
    case homeFeed
    case plpInline
    case pdpBelowBuy
    case cartLine
    case cartTop
    case cartBelowLines
    case checkoutAbovePay
    case orderConfirmation
    case membershipTop
    case unknown(String)

    package static let allCases: [Placement] = [
        .homeTop, .homeFeed, .plpInline, .pdpBelowBuy, .cartLine, .cartTop, .cartBelowLines, .checkoutAbovePay,
        .orderConfirmation, .membershipTop,
    ]
    package static let noun = "placement"

    package var rawValue: String {
        switch self {
        case .homeTop: "home_top"
        case .homeFeed: "home_feed"
        case .plpInline: "plp_inline"
        case .pdpBelowBuy: "pdp_below_buy"
        case .cartLine: "cart_line"
        case .cartTop: "cart_top"
        case .cartBelowLines: "cart_below_lines"
        case .checkoutAbovePay: "checkout_above_pay"
        case .orderConfirmation: "order_confirmation"
        case .membershipTop: "membership_top"
        case .unknown(let name): name
        }
    }
}

/// An `action` event's `action.kind` (contract §7): what the shopper's tap did.
package enum ActionKind: Vocabulary {
    case add
    /// Every line of a bundle.
    case addAll
    /// A substitute for an out-of-stock cart line, which names it in `replacedProductID`.
    case replace
    case navigate
    case unknown(String)

    package static let allCases: [ActionKind] = [.add, .addAll, .replace, .navigate]
    package static let noun = "action kind"

    package var rawValue: String {
        switch self {
        case .add: "add"
        case .addAll: "add_all"
        case .replace: "replace"
        case .navigate: "navigate"
        case .unknown(let name): name
        }
    }
}

/// An `action` event's `action.result` (contract §7): what the host app made of the action.
package enum ActionResult: Vocabulary {
    case accepted, partial, rejected
    case unknown(String)

    package static let allCases: [ActionResult] = [.accepted, .partial, .rejected]
    package static let noun = "action result"

    package var rawValue: String {
        switch self {
        case .accepted: "accepted"
        case .partial: "partial"
        case .rejected: "rejected"
        case .unknown(let name): name
        }
    }
}
