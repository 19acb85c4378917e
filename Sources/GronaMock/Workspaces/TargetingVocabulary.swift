// The vocabularies of screens and targeting (contract §4, Campaigns), declared once for the workspace
// validator, the events validator and `grona-mock load`. Each `allCases` lists every case but `unknown`, in
// the contract's order.

/// `screen.type`: the screen a placement is on, in targeting and in placement events (contract §7).
/// `other` is the contract's own case for an app's named screen (with `screen.name`); a name this version does
/// not know is `unknown`.
package enum ScreenType: Vocabulary {
    case home, categories, search, cart, checkout, category, product
    /// Carries `screen.treatments`, the treatment types applied to the order.
    case orderConfirmation
    /// Any other screen of the app, named by `screen.name`.
    case other
    case unknown(String)

    package static let allCases: [ScreenType] = [
        .home, .categories, .search, .cart, .checkout, .category, .product, .orderConfirmation, .other,
    ]
    package static let noun = "screen type"

    package var rawValue: String {
        switch self {
        case .home: "home"
        case .categories: "categories"
        case .search: "search"
        case .cart: "cart"
        case .checkout: "checkout"
        case .category: "category"
        case .product: "product"
        case .orderConfirmation: "order_confirmation"
        case .other: "other"
        case .unknown(let name): name
        }
    }
}

/// A targeting condition's `field`.
package enum TargetingField: Vocabulary {
    case screenType, screenProduct, screenCategory, screenName, screenTreatments
    case basketTotalMinor, basketLineCount, basketProductIDs
    case customerIdentified
    case unknown(String)

    package static let allCases: [TargetingField] = [
        .screenType, .screenProduct, .screenCategory, .screenName, .screenTreatments, .basketTotalMinor,
        .basketLineCount, .basketProductIDs, .customerIdentified,
    ]
    package static let noun = "field"

    package var rawValue: String {
        switch self {
        case .screenType: "screen.type"
        case .screenProduct: "screen.product"
        case .screenCategory: "screen.category"
        case .screenName: "screen.name"
        case .screenTreatments: "screen.treatments"
        case .basketTotalMinor: "basket.totalMinor"
        case .basketLineCount: "basket.lineCount"
        case .basketProductIDs: "basket.productIDs"
        case .customerIdentified: "customer.identified"
        case .unknown(let name): name
        }
    }
}

/// A targeting condition's `op`. Which fields take which is the workspace validator's table.
package enum TargetingOperator: Vocabulary {
    case eq, neq
    case `in`
    case notIn
    case contains, gt, gte, lt, lte, exists
    case unknown(String)

    package static let allCases: [TargetingOperator] = [
        .eq, .neq, .in, .notIn, .contains, .gt, .gte, .lt, .lte, .exists,
    ]
    package static let noun = "operator"

    package var rawValue: String {
        switch self {
        case .eq: "eq"
        case .neq: "neq"
        case .in: "in"
        case .notIn: "not_in"
        case .contains: "contains"
        case .gt: "gt"
        case .gte: "gte"
        case .lt: "lt"
        case .lte: "lte"
        case .exists: "exists"
        case .unknown(let name): name
        }
    }
}
