/// The contract's enumerated values the SDK reads (contract §4 and §7), each declared once.

/// The placements of contract §4; a campaign on any other is not read.
public enum Placement: String, Sendable, CaseIterable, Hashable {
    case homeTop = "home_top"
    case homeFeed = "home_feed"
    case plpInline = "plp_inline"
    case pdpBelowBuy = "pdp_below_buy"
    case cartLine = "cart_line"
    case cartTop = "cart_top"
    case cartBelowLines = "cart_below_lines"
    case checkoutAbovePay = "checkout_above_pay"
    case orderConfirmation = "order_confirmation"
    case membershipTop = "membership_top"
}

/// Screen types for `screen.type` (contract §4).
public enum ScreenType: String, Sendable, CaseIterable {
    case home, categories, search, cart, checkout, category, product
    case orderConfirmation = "order_confirmation"
    case other
}

/// Whose id a campaign assigns by (contract §5).
public enum AssignmentUnit: String, Sendable {
    case install, customer
}

/// The arm an event reports (contract §5, §7).
public enum Arm: String, Sendable {
    case treatment, control, holdout
}

/// Grona-rendered components this SDK can render (contract §4).
public enum ComponentType: String, Sendable, CaseIterable {
    case banner, progress, offer, message
}

/// Host-rendered decisions this SDK knows (contract §4); a newer type is "treated as no decision".
public enum DecisionType: String, Sendable, CaseIterable {
    case rail, bundle
    case productCard = "product_card"
    case substitute
}

/// Offer treatments (contract §4).
public enum TreatmentType: String, Sendable, CaseIterable {
    case percentOff = "percent_off"
    case amountOff = "amount_off"
    case freeDelivery = "free_delivery"
}

/// What the user's act on content reports (contract §7 `action.result`).
public enum ActionResult: String, Sendable, CaseIterable {
    case accepted, partial, rejected
}

/// The event types the SDK logs (contract §7).
public enum EventType: String, Sendable, CaseIterable {
    case eligible, served
    case anchorVisible = "anchor_visible"
    case exposure, action, dismiss, purchase
}
