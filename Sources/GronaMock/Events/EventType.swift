/// The event types of contract §7, declared once. Adding one means adding its case here, its checks in
/// `EventValidator`, and its entry in docs/schemas/events-batch.schema.json (a test walks the cases).
package enum EventType: String, CaseIterable, Sendable {
    case eligible
    case anchorVisible = "anchor_visible"
    case exposure
    case served
    case action
    case dismiss
    case purchase

    /// The types that report on one placement (every type but `purchase`).
    package var isPlacementEvent: Bool { self != .purchase }
}

/// The arms of contract §5, as events spell them, declared once: the validator accepts these, the violation
/// rules and the funnels compare against them, and `grona-mock load` writes them.
package enum Arm: String, CaseIterable, Sendable {
    case treatment
    case control
    /// The workspace-wide holdout, checked before any campaign's assignment.
    case holdout

    /// Nothing is shown in this arm (contract §5), so nothing is exposed or served there.
    package var showsNothing: Bool { self != .treatment }
}

/// The placements of contract §3, declared once (workspaces and events both name them).
package enum Placement: String, CaseIterable, Sendable {
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
