import GronaMockJSON

/// Validates targeting rules (contract §4): `all`, `any`, `not`, and conditions whose value fits their
/// field and operator.
struct TargetingValidator {
    var problems: ProblemCollector

    static let maximumDepth = 16

    /// What a field holds, which decides the operators and values it takes.
    private enum FieldKind {
        case screenType, text, treatments, integer, productIDs, boolean

        var operators: [String] {
            switch self {
            case .screenType: ["eq", "neq", "in", "not_in", "exists"]
            case .text: ["eq", "neq", "in", "not_in", "contains", "exists"]
            case .treatments, .productIDs: ["contains", "exists"]
            case .integer: ["eq", "neq", "gt", "gte", "lt", "lte", "in", "not_in", "exists"]
            case .boolean: ["eq", "neq", "exists"]
            }
        }
    }

    private static let fields: [String: FieldKind] = [
        "screen.type": .screenType, "screen.product": .text, "screen.category": .text, "screen.name": .text,
        "screen.treatments": .treatments, "basket.totalMinor": .integer, "basket.lineCount": .integer,
        "basket.productIDs": .productIDs, "customer.identified": .boolean,
    ]
    private static let fieldNames = [
        "screen.type", "screen.product", "screen.category", "screen.name", "screen.treatments", "basket.totalMinor",
        "basket.lineCount", "basket.productIDs", "customer.identified",
    ]

    mutating func validate(_ value: JSONValue, at path: JSONPath, depth: Int) {
        guard depth <= Self.maximumDepth else {
            problems.error(path, "rules are nested more than \(Self.maximumDepth) deep")
            return
        }
        guard let rule = problems.object(value, at: path) else { return }
        if rule["field"] != nil || rule["op"] != nil {
            condition(rule, at: path)
            return
        }
        let combinators = rule.keys.filter { ["all", "any", "not"].contains($0) }
        guard combinators.count == 1, rule.count == 1, let combinator = combinators.first else {
            problems.error(
                path,
                "a rule is one of {\"all\": [...]}, {\"any\": [...]}, {\"not\": rule} or a condition {\"field\", \"op\", \"value\"}"
            )
            return
        }
        let inner = path.appending(combinator)
        if combinator == "not" {
            if let nested = rule["not"] { validate(nested, at: inner, depth: depth + 1) }
            return
        }
        for (index, nested) in (problems.array(rule[combinator], at: inner, nonEmpty: true) ?? []).enumerated() {
            validate(nested, at: inner.appending(index), depth: depth + 1)
        }
    }

    private mutating func condition(_ rule: JSONObject, at path: JSONPath) {
        // An error, not a warning: a stray member (an "all" beside "field") would silently drop part of a rule.
        for member in rule where !["field", "op", "value"].contains(member.key) {
            problems.error(
                path.appending(member.key),
                "a condition has only field, op and value; \(Quote.text(member.key)) belongs in a rule of its own")
        }
        guard let field = problems.oneOf(rule["field"], at: path.appending("field"), Self.fieldNames, what: "field"),
            let kind = Self.fields[field]
        else {
            _ = problems.string(rule["op"], at: path.appending("op"))
            return
        }
        guard let op = problems.string(rule["op"], at: path.appending("op")) else { return }
        guard kind.operators.contains(op) else {
            problems.error(
                path.appending("op"),
                "\(field) does not take \(Quote.text(op)); it takes \(kind.operators.joined(separator: ", "))")
            return
        }
        let valuePath = path.appending("value")
        guard let value = rule["value"] else {
            problems.error(valuePath, "is required")
            return
        }
        switch op {
        case "exists":
            _ = problems.bool(value, at: valuePath)
        case "in", "not_in":
            for (index, item) in (problems.array(value, at: valuePath, nonEmpty: true) ?? []).enumerated() {
                scalar(item, kind: kind, at: valuePath.appending(index))
            }
        case "contains" where kind == .treatments:
            _ = problems.oneOf(value, at: valuePath, Vocabulary.treatmentTypes, what: "treatment type")
        case "contains" where kind == .productIDs:
            _ = problems.string(value, at: valuePath)
        default:
            scalar(value, kind: kind, at: valuePath)
        }
    }

    /// One value of the field's own type.
    private mutating func scalar(_ value: JSONValue, kind: FieldKind, at path: JSONPath) {
        switch kind {
        case .screenType:
            _ = problems.oneOf(value, at: path, Vocabulary.screenTypes, what: "screen type")
        case .text, .productIDs:
            _ = problems.string(value, at: path)
        case .treatments:
            _ = problems.oneOf(value, at: path, Vocabulary.treatmentTypes, what: "treatment type")
        case .integer:
            _ = problems.integer(value, at: path)
        case .boolean:
            _ = problems.bool(value, at: path)
        }
    }
}
