import GronaMock

/// The screens a simulated shopper visits (contract §4's `screen.type`), with the placements each one carries.
package enum ScreenType: String, Sendable, CaseIterable {
    case home, categories, search, cart, checkout, category, product
    case orderConfirmation = "order_confirmation"
    case other

    /// Where campaigns can appear on this screen.
    package var placements: [Placement] {
        switch self {
        case .home: [.homeTop, .homeFeed]
        case .categories: [.homeFeed]
        case .search, .category: [.plpInline]
        case .product: [.pdpBelowBuy]
        case .cart: [.cartTop, .cartLine, .cartBelowLines]
        case .checkout: [.checkoutAbovePay]
        case .orderConfirmation: [.orderConfirmation]
        case .other: [.membershipTop]
        }
    }
}
