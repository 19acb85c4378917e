/// A campaign's targeting rule (contract §4): `all`, `any`, `not`, or a condition on one field of the visit.
/// A rule with any part this SDK cannot read (an unknown field or operator, a malformed value) is unreadable as
/// a whole and never matches, so the campaign is not shown rather than shown to everyone (a `not` around an
/// unknown condition must not turn it into "always").
public indirect enum TargetingRule: Sendable, Equatable {
    case all([TargetingRule])
    case any([TargetingRule])
    case not(TargetingRule)
    case condition(TargetingField, TargetingOperator, TargetingValue)
    case unreadable

    public init(json: JSON) {
        guard let object = json.objectValue, object.count == 1 || object["field"] != nil else {
            self = .unreadable
            return
        }
        if let field = object["field"] {
            guard object.count == 3, let field = field.stringValue.flatMap(TargetingField.init(rawValue:)),
                let op = object["op"]?.stringValue.flatMap(TargetingOperator.init(rawValue:)),
                let value = object["value"].flatMap(TargetingValue.init(json:))
            else {
                self = .unreadable
                return
            }
            self = .condition(field, op, value)
        } else if let rules = object["all"]?.arrayValue {
            let children = rules.map(TargetingRule.init(json:))
            self = children.contains(.unreadable) ? .unreadable : .all(children)
        } else if let rules = object["any"]?.arrayValue {
            let children = rules.map(TargetingRule.init(json:))
            self = children.contains(.unreadable) ? .unreadable : .any(children)
        } else if let rule = object["not"] {
            let child = TargetingRule(json: rule)
            self = child == .unreadable ? .unreadable : .not(child)
        } else {
            self = .unreadable
        }
    }

    public func matches(_ context: TargetingContext) -> Bool {
        switch self {
        case .all(let rules): rules.allSatisfy { $0.matches(context) }
        case .any(let rules): rules.contains { $0.matches(context) }
        case .not(let rule): !rule.matches(context)
        case .condition(let field, let op, let value): op.holds(context.value(of: field), value)
        case .unreadable: false
        }
    }
}

/// The fields of contract §4.
public enum TargetingField: String, Sendable, CaseIterable {
    case screenType = "screen.type"
    case screenProduct = "screen.product"
    case screenCategory = "screen.category"
    case screenName = "screen.name"
    case screenTreatments = "screen.treatments"
    case basketTotalMinor = "basket.totalMinor"
    case basketLineCount = "basket.lineCount"
    case basketProductIDs = "basket.productIDs"
    case customerIdentified = "customer.identified"
}

/// The operators of contract §4.
public enum TargetingOperator: String, Sendable, CaseIterable {
    case eq, neq
    case `in`
    case notIn = "not_in"
    case contains, gt, gte, lt, lte, exists

    /// Whether the condition holds for the visit's value of its field. A field the visit does not have (no
    /// product on a home screen) satisfies only `neq`, `not_in` and `exists false`.
    func holds(_ field: TargetingValue?, _ operand: TargetingValue) -> Bool {
        if self == .exists {
            guard case .bool(let wanted) = operand else { return false }
            return (field != nil) == wanted
        }
        guard let field else { return self == .neq || self == .notIn }
        switch self {
        case .eq: return field == operand
        case .neq: return field != operand
        case .in, .notIn:
            guard case .list(let options) = operand else { return false }
            return options.contains(field) == (self == .in)
        case .contains:
            switch (field, operand) {
            case (.list(let items), _): return items.contains(operand)
            case (.text(let text), .text(let part)): return text.contains(part)
            default: return false
            }
        case .gt, .gte, .lt, .lte:
            guard case .number(let left) = field, case .number(let right) = operand else { return false }
            switch self {
            case .gt: return left > right
            case .gte: return left >= right
            case .lt: return left < right
            default: return left <= right
            }
        case .exists: return false
        }
    }
}

/// A condition's operand, or a field's value on a visit. Numbers and booleans are distinct: `true` never
/// equals 1.
public enum TargetingValue: Sendable, Equatable {
    case text(String)
    case number(Double)
    case bool(Bool)
    case list([TargetingValue])

    public init?(json: JSON) {
        switch json {
        case .string(let text): self = .text(text)
        case .bool(let flag): self = .bool(flag)
        case .number(let number): self = .number(number)
        case .array(let items):
            let values = items.compactMap(TargetingValue.init(json:))
            guard values.count == items.count else { return nil }
            self = .list(values)
        case .null, .object: return nil
        }
    }
}

/// What a visit offers to targeting: its screen and basket and whether the shopper is identified.
public struct TargetingContext: Sendable {
    public var screen: Screen
    public var basket: Basket
    public var identified: Bool

    public init(screen: Screen, basket: Basket, identified: Bool) {
        self.screen = screen
        self.basket = basket
        self.identified = identified
    }

    func value(of field: TargetingField) -> TargetingValue? {
        switch field {
        case .screenType: .text(screen.type.rawValue)
        case .screenProduct: screen.type == .product ? screen.id.map(TargetingValue.text) : nil
        case .screenCategory: screen.type == .category ? screen.id.map(TargetingValue.text) : nil
        case .screenName: screen.type == .other ? screen.name.map(TargetingValue.text) : nil
        case .screenTreatments:
            screen.type == .orderConfirmation && !screen.treatments.isEmpty
                ? .list(screen.treatments.map(TargetingValue.text)) : nil
        case .basketTotalMinor: .number(Double(basket.totalMinor))
        case .basketLineCount: .number(Double(basket.lineCount))
        case .basketProductIDs: .list(basket.productIDs.map(TargetingValue.text))
        case .customerIdentified: .bool(identified)
        }
    }
}

/// The screen of a visit (contract §4 fields, §7 `screen`).
public struct Screen: Sendable, Equatable {
    public var type: ScreenType
    /// The product or category id, on `product` and `category` screens.
    public var id: String?
    /// The screen's name, on `other` screens.
    public var name: String?
    /// Treatment types applied to the order, on `order_confirmation`.
    public var treatments: [String]

    public init(type: ScreenType, id: String? = nil, name: String? = nil, treatments: [String] = []) {
        self.type = type
        self.id = id
        self.name = name
        self.treatments = treatments
    }

    /// As events carry it (contract §7): `id` for product and category, `name` for other, `treatments` for
    /// order_confirmation.
    public var json: JSON {
        var object = JSONObject()
        object["type"] = .string(type.rawValue)
        switch type {
        case .product, .category: object["id"] = id.map(JSON.string)
        case .other: object["name"] = name.map(JSON.string)
        case .orderConfirmation: object["treatments"] = .array(treatments.map(JSON.string))
        case .home, .categories, .search, .cart, .checkout: break
        }
        return .object(object)
    }
}

/// The basket of a visit; an empty one when the app gives none (a shopper always has a basket, if empty).
public struct Basket: Sendable, Equatable {
    public var totalMinor: Int64
    public var lineCount: Int64
    public var productIDs: [String]

    public init(totalMinor: Int64 = 0, lineCount: Int64 = 0, productIDs: [String] = []) {
        self.totalMinor = totalMinor
        self.lineCount = lineCount
        self.productIDs = productIDs
    }
}
