import GronaMock
import GronaMockJSON

/// What a variant puts on screen (contract §4), reduced to what a simulated shopper can do with it.
package enum VariantContent: Sendable, Equatable {
    case control
    /// A Grona-rendered component; `action` is its call to action's `action` member, pre-encoded; `treatment`
    /// the offer's.
    case component(ComponentKind, action: [UInt8]?, treatment: Treatment?)
    /// A host-rendered decision; `action` is what tapping its call to action logs (not for `substitute`, whose
    /// action depends on the cart line).
    case decision(DecisionKind, action: [UInt8]?, substitutes: [String: [UInt8]])
    /// A decision type from a newer SDK: treated as no decision, so nothing is shown.
    case unknown

    package var isOffer: Bool {
        if case .component(.offer, _, _) = self { return true }
        return false
    }

    package var treatment: Treatment? {
        if case .component(_, _, let treatment) = self { return treatment }
        return nil
    }

    init(json: JSONValue) {
        if json["control"]?.boolValue == true {
            self = .control
        } else if let component = json["component"] {
            guard let kind = component["type"]?.stringValue.flatMap(ComponentKind.init) else {
                self = .unknown
                return
            }
            let treatment = component["treatment"].flatMap { value -> Treatment? in
                guard let type = value["type"]?.stringValue, let milli = value["valueMilli"]?.int64Value else {
                    return nil
                }
                return Treatment(type: type, valueMilli: milli)
            }
            self = .component(kind, action: component["cta"]?["action"].flatMap(Self.action), treatment: treatment)
        } else if let decision = json["decision"] {
            guard let kind = decision["type"]?.stringValue.flatMap(DecisionKind.init) else {
                self = .unknown
                return
            }
            let lines = Self.lines(decision["products"])
            switch kind {
            case .substitute:
                var substitutes: [String: [UInt8]] = [:]
                for member in decision["substitutes"]?.objectValue ?? JSONObject() {
                    let replacement = Self.lines(member.value)
                    guard !replacement.isEmpty else { continue }
                    substitutes[member.key] =
                        Array("{\"kind\":\"replace\",\"replacedProductID\":".utf8) + JSONBytes.quoted(member.key)
                        + Array(",\"lines\":".utf8) + replacement
                }
                self = .decision(kind, action: nil, substitutes: substitutes)
            case .bundle, .rail, .productCard:
                let verb = kind == .bundle ? "add_all" : "add"
                let action = lines.isEmpty ? nil : Array("{\"kind\":\"\(verb)\",\"lines\":".utf8) + lines
                self = .decision(kind, action: action, substitutes: [:])
            }
        } else {
            self = .unknown
        }
    }

    /// `{"kind":…,…` of an action event (without its result and closing brace) for a component's action.
    private static func action(_ json: JSONValue) -> [UInt8]? {
        switch json["type"]?.stringValue {
        case "add":
            let lines = lines(json["lines"])
            return lines.isEmpty ? nil : Array("{\"kind\":\"add\",\"lines\":".utf8) + lines
        case "navigate":
            guard let route = json["route"]?.objectValue, let type = route["type"]?.stringValue else { return nil }
            var bytes = Array("{\"kind\":\"navigate\",\"route\":{\"type\":".utf8) + JSONBytes.quoted(type)
            if let id = route["id"]?.stringValue { bytes += Array(",\"id\":".utf8) + JSONBytes.quoted(id) }
            return bytes + [UInt8(ascii: "}")]
        default:
            return nil
        }
    }

    /// `[{"productID":…,"quantity":…},…]`, quantity 1 when absent (contract §4).
    private static func lines(_ json: JSONValue?) -> [UInt8] {
        let items = (json?.arrayValue ?? []).compactMap { line -> [UInt8]? in
            guard let productID = line["productID"]?.stringValue else { return nil }
            let quantity = min(max(line["quantity"]?.int64Value ?? 1, 1), 20)
            return Array("{\"productID\":".utf8) + JSONBytes.quoted(productID)
                + Array(",\"quantity\":\(quantity)}".utf8)
        }
        guard !items.isEmpty else { return [] }
        return [UInt8(ascii: "[")] + Array(items.joined(separator: [UInt8(ascii: ",")])) + [UInt8(ascii: "]")]
    }
}

package enum ComponentKind: String, Sendable {
    case banner, progress, offer, message
}

package enum DecisionKind: String, Sendable {
    case rail, bundle, substitute
    case productCard = "product_card"
}
