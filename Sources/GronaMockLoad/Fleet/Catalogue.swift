import GronaMock

/// The shop the simulated shoppers browse: products with prices, categories, and the named `other` screens.
/// It holds the ids the committed acme-market campaigns target (spaghetti, oat drink, breakfast listings,
/// membership), so that a run exercises their targeting and not only the home screen.
package struct Catalogue: Sendable {
    package struct Product: Sendable {
        package var id: String
        package var priceMinor: Int64
        package var idJSON: [UInt8]
    }

    package let products: [Product]
    package let categories: [[UInt8]]
    package let categoryIDs: [String]
    package let otherScreens: [String]

    package static let standard = Catalogue(
        products: [
            ("spaghetti-500g", 129), ("penne-500g", 119), ("tomato-passata-700g", 149), ("parmesan-200g", 449),
            ("oat-milk-1l", 199), ("oat-barista-1l", 229), ("bananas-6pk", 189), ("sourdough-loaf-800g", 349),
            ("free-range-eggs-12", 389), ("greek-yogurt-500g", 259), ("granola-honey-500g", 429),
            ("blueberries-250g", 299), ("cold-brew-coffee-1l", 549), ("hot-chocolate-250g", 379),
            ("marshmallows-200g", 199), ("flour-plain-1kg", 99), ("gift-card-50", 5000), ("olive-oil-1l", 899),
            ("rice-basmati-1kg", 279), ("dark-chocolate-100g", 229),
        ],
        categories: ["breakfast", "cereal", "bakery", "pantry", "baking", "produce", "beer-wine", "frozen"],
        otherScreens: ["membership", "acme-plus", "account", "help"])

    init(products: [(String, Int64)], categories: [String], otherScreens: [String]) {
        self.products = products.map { Product(id: $0.0, priceMinor: $0.1, idJSON: JSONBytes.quoted($0.0)) }
        categoryIDs = categories
        self.categories = categories.map(JSONBytes.quoted)
        self.otherScreens = otherScreens
    }
}

/// How often each screen is visited, out of 100: browsing first, a purchase now and then.
enum ScreenMix {
    static let weights: [(ScreenType, Int)] = [
        (.home, 22), (.categories, 4), (.category, 14), (.search, 8), (.product, 20), (.cart, 12), (.checkout, 7),
        (.orderConfirmation, 5), (.other, 8),
    ]

    static func draw(_ random: inout SplitMix64) -> ScreenType {
        var roll = random.below(100)
        for (screen, weight) in weights {
            if roll < weight { return screen }
            roll -= weight
        }
        return .home
    }
}

extension ScreenType {
    /// Where campaigns can appear on this screen of the simulated shop.
    var placements: [Placement] {
        switch self {
        case .home: [.homeTop, .homeFeed]
        case .categories: [.homeFeed]
        case .search, .category: [.plpInline]
        case .product: [.pdpBelowBuy]
        case .cart: [.cartTop, .cartLine, .cartBelowLines]
        case .checkout: [.checkoutAbovePay]
        case .orderConfirmation: [.orderConfirmation]
        case .other: [.membershipTop]
        case .unknown: []
        }
    }
}
