// The vocabularies of slot content (contract §4, Components and Decisions): what a variant shows, declared
// once for the workspace validator, the events validator, the violation rules and `grona-mock load`.
// Each `allCases` lists every case but `unknown`, in the contract's order.

/// A component's `type`: content Grona renders.
package enum ComponentType: Vocabulary {
    case banner, progress, offer, message
    case unknown(String)

    package static let allCases: [ComponentType] = [.banner, .progress, .offer, .message]
    package static let noun = "component type"

    package var rawValue: String {
        switch self {
        case .banner: "banner"
        case .progress: "progress"
        case .offer: "offer"
        case .message: "message"
        case .unknown(let name): name
        }
    }
}

/// A decision's `type`: content the host app renders. Any other snake_case name is a type a newer SDK may
/// know, accepted with a warning (old SDKs treat it as no decision), so `unknown` is served as it came.
package enum DecisionType: Vocabulary {
    case rail, bundle
    case productCard
    /// Only on `cart_line`, with `substitutes` instead of `products`.
    case substitute
    case unknown(String)

    package static let allCases: [DecisionType] = [.rail, .bundle, .productCard, .substitute]
    package static let noun = "decision type"

    package var rawValue: String {
        switch self {
        case .rail: "rail"
        case .bundle: "bundle"
        case .productCard: "product_card"
        case .substitute: "substitute"
        case .unknown(let name): name
        }
    }
}

/// An offer's `treatment.type` (and the treatments of a grant, a purchase and `screen.treatments`); its
/// `valueMilli` is in thousandths.
package enum TreatmentType: Vocabulary {
    case percentOff, amountOff, freeDelivery
    case unknown(String)

    package static let allCases: [TreatmentType] = [.percentOff, .amountOff, .freeDelivery]
    package static let noun = "treatment type"

    package var rawValue: String {
        switch self {
        case .percentOff: "percent_off"
        case .amountOff: "amount_off"
        case .freeDelivery: "free_delivery"
        case .unknown(let name): name
        }
    }
}

/// A message component's optional `tone`.
package enum Tone: Vocabulary {
    case info, success, warning
    case unknown(String)

    package static let allCases: [Tone] = [.info, .success, .warning]
    package static let noun = "tone"

    package var rawValue: String {
        switch self {
        case .info: "info"
        case .success: "success"
        case .warning: "warning"
        case .unknown(let name): name
        }
    }
}

/// A call to action's `action.type` in a configuration: add lines to the cart, or navigate. (What the SDK
/// then logs is an `ActionKind`.)
package enum ActionType: Vocabulary {
    case add, navigate
    case unknown(String)

    package static let allCases: [ActionType] = [.add, .navigate]
    package static let noun = "action type"

    package var rawValue: String {
        switch self {
        case .add: "add"
        case .navigate: "navigate"
        case .unknown(let name): name
        }
    }
}

/// A navigate action's `route.type`, in a configuration and in an `action` event.
package enum RouteType: Vocabulary {
    case home, product, category, cart, checkout, deals
    case unknown(String)

    package static let allCases: [RouteType] = [.home, .product, .category, .cart, .checkout, .deals]
    package static let noun = "route type"

    package var rawValue: String {
        switch self {
        case .home: "home"
        case .product: "product"
        case .category: "category"
        case .cart: "cart"
        case .checkout: "checkout"
        case .deals: "deals"
        case .unknown(let name): name
        }
    }

    /// Routes to a product or a category name it with `id`; no other route takes one (contract §4, Actions).
    package var takesID: Bool {
        switch self {
        case .product, .category: true
        case .home, .cart, .checkout, .deals, .unknown: false
        }
    }
}
