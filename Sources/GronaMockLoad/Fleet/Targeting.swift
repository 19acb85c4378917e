import GronaMock
import GronaMockJSON

/// A campaign's targeting rule (contract §4), read once per configuration and evaluated per visit.
package indirect enum TargetingRule: Sendable, Equatable {
    case all([TargetingRule])
    case any([TargetingRule])
    case not(TargetingRule)
    case condition(TargetingField, TargetingOperator, TargetingValue)
    /// A rule this fleet cannot read (a field or operator from a newer contract): it never matches, so an
    /// install shows nothing it does not understand.
    case unreadable

    /// Reads a rule from its JSON; anything unexpected becomes `.unreadable` rather than an error.
    package init(json: JSONValue) {
        guard let object = json.objectValue else {
            self = .unreadable
            return
        }
        if let field = object["field"]?.stringValue {
            guard let field = TargetingField.known(field), let op = object["op"]?.stringValue,
                let op = TargetingOperator.known(op), let value = object["value"].flatMap(TargetingValue.init)
            else {
                self = .unreadable
                return
            }
            self = .condition(field, op, value)
        } else if let rules = object["all"]?.arrayValue {
            self = .all(rules.map(TargetingRule.init))
        } else if let rules = object["any"]?.arrayValue {
            self = .any(rules.map(TargetingRule.init))
        } else if let rule = object["not"] {
            self = .not(TargetingRule(json: rule))
        } else {
            self = .unreadable
        }
    }

    /// Whether the rule holds for a visit.
    package func matches(_ context: TargetingContext) -> Bool {
        switch self {
        case .all(let rules): rules.allSatisfy { $0.matches(context) }
        case .any(let rules): rules.contains { $0.matches(context) }
        case .not(let rule): !rule.matches(context)
        case .condition(let field, let op, let value): op.holds(context.value(of: field), value)
        case .unreadable: false
        }
    }
}

/// A condition's operand, or a field's value on a visit.
package enum TargetingValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case bool(Bool)
    case list([TargetingValue])

    init?(json: JSONValue) {
        switch json {
        case .string(let text): self = .text(text)
        case .bool(let flag): self = .bool(flag)
        case .number(let number):
            guard let integer = number.int64 else { return nil }
            self = .integer(integer)
        case .array(let items):
            let values = items.compactMap(TargetingValue.init)
            guard values.count == items.count else { return nil }
            self = .list(values)
        case .null, .object: return nil
        }
    }
}

extension TargetingOperator {
    /// Whether the condition holds for the visit's value of its field. A field the visit does not have (no
    /// product on a home screen) satisfies only `neq`, `not_in` and `exists false`.
    func holds(_ field: TargetingValue?, _ operand: TargetingValue) -> Bool {
        if case .exists = self {
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
            guard case .integer(let left) = field, case .integer(let right) = operand else { return false }
            switch self {
            case .gt: return left > right
            case .gte: return left >= right
            case .lt: return left < right
            default: return left <= right
            }
        case .exists, .unknown: return false
        }
    }
}

/// What a visit offers to targeting: the screen, the basket and whether the shopper is identified.
package struct TargetingContext: Sendable {
    package var screen: ScreenType
    /// The product or category id, or the name of an `other` screen.
    package var screenID: String?
    /// Treatment types applied to the order, on `order_confirmation`.
    package var treatments: [TreatmentType]
    package var basketTotalMinor: Int64
    package var basketProductIDs: [String]
    package var identified: Bool

    package init(
        screen: ScreenType, screenID: String? = nil, treatments: [TreatmentType] = [], basketTotalMinor: Int64 = 0,
        basketProductIDs: [String] = [], identified: Bool = false
    ) {
        self.screen = screen
        self.screenID = screenID
        self.treatments = treatments
        self.basketTotalMinor = basketTotalMinor
        self.basketProductIDs = basketProductIDs
        self.identified = identified
    }

    func value(of field: TargetingField) -> TargetingValue? {
        switch field {
        case .screenType: .text(screen.rawValue)
        case .screenProduct: screen == .product ? screenID.map(TargetingValue.text) : nil
        case .screenCategory: screen == .category ? screenID.map(TargetingValue.text) : nil
        case .screenName: screen == .other ? screenID.map(TargetingValue.text) : nil
        case .screenTreatments:
            screen == .orderConfirmation && !treatments.isEmpty ? .list(treatments.map { .text($0.rawValue) }) : nil
        case .basketTotalMinor: .integer(basketTotalMinor)
        case .basketLineCount: .integer(Int64(basketProductIDs.count))
        case .basketProductIDs: .list(basketProductIDs.map(TargetingValue.text))
        case .customerIdentified: .bool(identified)
        case .unknown: nil
        }
    }
}
