import GronaMockJSON

extension ScenarioLoader {
    /// A scalar (equality) or an object of operators (`ValueMatcher.operators`).
    static func valueMatcher(_ value: JSONValue, at path: JSONPath, reader: inout ScenarioReader) -> ValueMatcher? {
        switch value {
        case .array:
            reader.problem(path, "an array is matched with {\"eq\": [...]} or {\"contains\": …}")
            return nil
        case .object(let object):
            guard !object.isEmpty else {
                reader.problem(
                    path,
                    "an operator object names one operator at least: \(ValueMatcher.operators.joined(separator: ", "))")
                return nil
            }
            let start = reader.problems.entries.count
            let tests = object.compactMap { member in
                test(member.key, member.value, at: path.appending(member.key), reader: &reader)
            }
            guard reader.problems.entries.count == start else { return nil }
            return ValueMatcher(tests: tests, source: value)
        default:
            return ValueMatcher(tests: [.equals(value)], source: value)
        }
    }

    private static func test(
        _ name: String, _ operand: JSONValue, at path: JSONPath, reader: inout ScenarioReader
    ) -> ValueMatcher.Test? {
        func number() -> Double? {
            guard let number = operand.doubleValue else {
                reader.problem(path, "\(name) takes a number, not \(ScenarioReader.shown(operand))")
                return nil
            }
            return number
        }
        func milliseconds() -> Int64? {
            reader.integer(operand, at: path, in: -86_400_000 * 3660...86_400_000 * 3660, what: name)
        }
        switch name {
        case "eq": return .equals(operand)
        case "ne": return .notEquals(operand)
        case "in":
            guard let values = operand.arrayValue else {
                reader.problem(path, "in takes an array of values")
                return nil
            }
            return .oneOf(values)
        case "present":
            return reader.boolean(operand, at: path, what: "present").map(ValueMatcher.Test.present)
        case "gt": return number().map { .greater($0, orEqual: false) }
        case "gte": return number().map { .greater($0, orEqual: true) }
        case "lt": return number().map { .less($0, orEqual: false) }
        case "lte": return number().map { .less($0, orEqual: true) }
        case "contains": return .contains(operand)
        case "matches":
            guard let pattern = operand.stringValue, (try? Regex(pattern)) != nil else {
                reader.problem(path, "matches takes a regular expression, not \(ScenarioReader.shown(operand))")
                return nil
            }
            return .matches(pattern)
        case "length":
            return reader.integer(operand, at: path, in: 0...1_000_000, what: "length").map { .length(Int($0)) }
        case "sdkTime": return milliseconds().map(ValueMatcher.Test.sdkTime)
        case "sdkTimeBetween":
            guard let bounds = operand.arrayValue, bounds.count == 2, let low = bounds[0].int64Value,
                let high = bounds[1].int64Value, low <= high
            else {
                reader.problem(path, "sdkTimeBetween takes [from, to]: milliseconds since the start, from ≤ to")
                return nil
            }
            return .sdkTimeBetween(low, high)
        default:
            reader.problem(
                path,
                "unknown operator \(ScenarioReader.quoted(name)); the operators are "
                    + ValueMatcher.operators.joined(separator: ", ") + " (an object to compare whole: {\"eq\": {…}})")
            return nil
        }
    }
}
