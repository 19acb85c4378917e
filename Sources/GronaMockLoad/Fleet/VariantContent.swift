import GronaMock
import GronaMockJSON

/// What a variant puts on screen (contract §4), reduced to what a simulated shopper can do with it.
package enum VariantContent: Sendable, Equatable {
    case control
    /// A Grona-rendered component; `action` is its call to action's `action` member, pre-encoded; `treatment`
    /// the offer's.
    case component(ComponentType, action: [UInt8]?, treatment: Treatment?)
    /// A host-rendered decision; `action` is what tapping its call to action logs (not for `substitute`, whose
    /// action depends on the cart line).
    case decision(DecisionType, action: [UInt8]?, substitutes: [String: [UInt8]])
    /// A component or decision type from a newer SDK: treated as no decision, so nothing is shown.
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
            guard let kind = component["type"]?.stringValue.flatMap(ComponentType.known) else {
                self = .unknown
                return
            }
            let treatment = component["treatment"].flatMap { value -> Treatment? in
                guard let type = value["type"]?.stringValue, let milli = value["valueMilli"]?.int64Value else {
                    return nil
                }
                return Treatment(type: TreatmentType(rawValue: type), valueMilli: milli)
            }
            self = .component(kind, action: component["cta"]?["action"].flatMap(Self.action), treatment: treatment)
        } else if let decision = json["decision"] {
            guard let kind = decision["type"]?.stringValue.flatMap(DecisionType.known) else {
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
                        Self.kind(.replace) + Array(",\"replacedProductID\":".utf8) + JSONBytes.quoted(member.key)
                        + Array(",\"lines\":".utf8) + replacement
                }
                self = .decision(kind, action: nil, substitutes: substitutes)
            case .bundle, .rail, .productCard:
                let action = lines.isEmpty ? nil : Self.kind(kind == .bundle ? .addAll : .add) + Self.linesMember(lines)
                self = .decision(kind, action: action, substitutes: [:])
            case .unknown:
                self = .unknown  // never: `known` answers known types only
            }
        } else {
            self = .unknown
        }
    }

    /// `{"kind":…,…` of an action event (without its result and closing brace) for a component's action.
    private static func action(_ json: JSONValue) -> [UInt8]? {
        switch ActionType(rawValue: json["type"]?.stringValue ?? "") {
        case .add:
            let lines = lines(json["lines"])
            return lines.isEmpty ? nil : kind(.add) + linesMember(lines)
        case .navigate:
            // A route type from a newer configuration is logged as it came: the SDK reports what it did.
            guard let route = json["route"]?.objectValue, let type = route["type"]?.stringValue.map(RouteType.init)
            else { return nil }
            var bytes = kind(.navigate) + Array(",\"route\":{\"type\":".utf8) + JSONBytes.quoted(type.rawValue)
            if let id = route["id"]?.stringValue { bytes += Array(",\"id\":".utf8) + JSONBytes.quoted(id) }
            return bytes + [UInt8(ascii: "}")]
        case .unknown:
            return nil
        }
    }

    /// `{"kind":"…"`: how an action event's `action` member starts.
    private static func kind(_ kind: ActionKind) -> [UInt8] {
        Array("{\"kind\":".utf8) + JSONBytes.quoted(kind.rawValue)
    }

    /// `,"lines":[…]`.
    private static func linesMember(_ lines: [UInt8]) -> [UInt8] {
        Array(",\"lines\":".utf8) + lines
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
