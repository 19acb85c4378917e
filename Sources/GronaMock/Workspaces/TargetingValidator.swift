import GronaMockJSON

/// Validates targeting rules (contract §4): `all`, `any`, `not`, and conditions whose value fits their
/// field and operator.
struct TargetingValidator {
    var problems: ProblemCollector

    static let maximumDepth = 16

    /// What a field holds, which decides the operators and values it takes.
    private enum FieldKind {
        case screenType, text, treatments, integer, productIDs, boolean

        /// In the order messages list them.
        var operators: [TargetingOperator] {
            switch self {
            case .screenType: [.eq, .neq, .in, .notIn, .exists]
            case .text: [.eq, .neq, .in, .notIn, .contains, .exists]
            case .treatments, .productIDs: [.contains, .exists]
            case .integer: [.eq, .neq, .gt, .gte, .lt, .lte, .in, .notIn, .exists]
            case .boolean: [.eq, .neq, .exists]
            }
        }
    }

    /// What `field` holds; nil for a field this version does not know.
    private static func kind(of field: TargetingField) -> FieldKind? {
        switch field {
        case .screenType: .screenType
        case .screenProduct, .screenCategory, .screenName: .text
        case .screenTreatments: .treatments
        case .basketTotalMinor, .basketLineCount: .integer
        case .basketProductIDs: .productIDs
        case .customerIdentified: .boolean
        case .unknown: nil
        }
    }

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
        guard let field = problems.oneOf(rule["field"], at: path.appending("field"), TargetingField.self),
            let kind = Self.kind(of: field)
        else {
            _ = problems.string(rule["op"], at: path.appending("op"))
            return
        }
        guard let name = problems.string(rule["op"], at: path.appending("op")) else { return }
        guard let op = TargetingOperator.known(name), kind.operators.contains(op) else {
            let operators = kind.operators.map(\.rawValue).joined(separator: ", ")
            problems.error(path.appending("op"), "\(field) does not take \(Quote.text(name)); it takes \(operators)")
            return
        }
        let valuePath = path.appending("value")
        guard let value = rule["value"] else {
            problems.error(valuePath, "is required")
            return
        }
        switch op {
        case .exists:
            _ = problems.bool(value, at: valuePath)
        case .in, .notIn:
            for (index, item) in (problems.array(value, at: valuePath, nonEmpty: true) ?? []).enumerated() {
                scalar(item, kind: kind, at: valuePath.appending(index))
            }
        case .contains where kind == .treatments:
            _ = problems.oneOf(value, at: valuePath, TreatmentType.self)
        case .contains where kind == .productIDs:
            _ = problems.string(value, at: valuePath)
        default:
            scalar(value, kind: kind, at: valuePath)
        }
    }

    /// One value of the field's own type.
    private mutating func scalar(_ value: JSONValue, kind: FieldKind, at path: JSONPath) {
        switch kind {
        case .screenType:
            _ = problems.oneOf(value, at: path, ScreenType.self)
        case .text, .productIDs:
            _ = problems.string(value, at: path)
        case .treatments:
            _ = problems.oneOf(value, at: path, TreatmentType.self)
        case .integer:
            _ = problems.integer(value, at: path)
        case .boolean:
            _ = problems.bool(value, at: path)
        }
    }
}
