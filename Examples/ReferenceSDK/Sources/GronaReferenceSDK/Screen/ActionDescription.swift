/// The `action` of an `action` event (contract §7) for acting on a piece of content: a component's call to
/// action as configured, or for a decision, its products (a bundle all at once, a substitute in place of the
/// cart line's product).
enum ActionDescription {
    static func of(_ content: Content, key: String?) -> JSONObject? {
        switch content.kind {
        case .component: componentAction(content.body)
        case .decision: decisionAction(content, key: key)
        }
    }

    private static func componentAction(_ body: JSON) -> JSONObject? {
        guard let action = body["cta"]?["action"] else { return nil }
        var object = JSONObject()
        switch action["type"]?.stringValue {
        case "add":
            guard let lines = lines(action["lines"]) else { return nil }
            object["kind"] = "add"
            object["lines"] = lines
        case "navigate":
            guard let route = action["route"], route.objectValue != nil else { return nil }
            object["kind"] = "navigate"
            object["route"] = route
        default:
            return nil
        }
        return object
    }

    private static func decisionAction(_ content: Content, key: String?) -> JSONObject? {
        var object = JSONObject()
        switch DecisionType(rawValue: content.typeName) {
        case .rail?, .productCard?:
            guard let lines = lines(content.body["products"]) else { return nil }
            object["kind"] = "add"
            object["lines"] = lines
        case .bundle?:
            guard let lines = lines(content.body["products"]) else { return nil }
            object["kind"] = "add_all"
            object["lines"] = lines
        case .substitute?:
            // The user takes the first swap offered for the cart line's product.
            guard let key, let first = content.body["substitutes"]?[key]?.arrayValue?.first,
                let lines = lines(.array([first]))
            else { return nil }
            object["kind"] = "replace"
            object["lines"] = lines
            object["replacedProductID"] = .string(key)
        case nil:
            return nil
        }
        return object
    }

    /// `[{"productID", "quantity"}]`, quantity 1 when the configuration leaves it out; nil when empty or
    /// malformed.
    private static func lines(_ json: JSON?) -> JSON? {
        guard let items = json?.arrayValue, !items.isEmpty else { return nil }
        var lines: [JSON] = []
        for item in items {
            guard let productID = item["productID"]?.stringValue else { return nil }
            let quantity = item["quantity"]?.int64Value ?? 1
            lines.append(["productID": .string(productID), "quantity": .integer(quantity)])
        }
        return .array(lines)
    }
}

extension Content {
    /// What the `action-without-served` mutant acts on in a slot that shows nothing: a navigation home.
    static let none = Content(
        kind: .component, body: ["type": "banner", "cta": ["action": ["type": "navigate", "route": ["type": "home"]]]])
}
