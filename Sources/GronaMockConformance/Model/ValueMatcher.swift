import GronaMockJSON

/// What one value must be, as a scenario writes it (docs/conformance.md, "Matchers"): a JSON scalar is
/// equality, and an object names operators, all of which must hold: `{"gte": 1, "lte": 3}`.
///
/// Times: `sdkTime` and `sdkTimeBetween` compare a Unix-milliseconds value with the scenario's start on the
/// SDK's clock (`client.clock.startMs`), so a scenario need not know its absolute start.
package struct ValueMatcher: Sendable {
    package enum Test: Sendable {
        case equals(JSONValue)
        case notEquals(JSONValue)
        case oneOf([JSONValue])
        case present(Bool)
        case greater(Double, orEqual: Bool)
        case less(Double, orEqual: Bool)
        case contains(JSONValue)
        /// A regular expression (checked when the scenario loads) found in the string.
        case matches(String)
        case length(Int)
        /// The value is the scenario's start plus this many milliseconds of SDK time.
        case sdkTime(Int64)
        /// The value lies in the scenario's start plus this range of milliseconds, both ends included.
        case sdkTimeBetween(Int64, Int64)
    }

    package let tests: [Test]
    /// The matcher as it was written, for explanations.
    package let source: JSONValue

    /// The operators an object may name, for the loader's messages.
    package static let operators = [
        "eq", "ne", "in", "present", "gt", "gte", "lt", "lte", "contains", "matches", "length", "sdkTime",
        "sdkTimeBetween",
    ]

    /// Whether `value` (nil: the field is absent) passes every test, with `startMs` the scenario's start.
    package func accepts(_ value: JSONValue?, startMs: Int64) -> Bool {
        tests.allSatisfy { Self.passes($0, value, startMs: startMs) }
    }

    private static func passes(_ test: Test, _ value: JSONValue?, startMs: Int64) -> Bool {
        switch test {
        case .present(let wanted):
            return (value != nil && value?.isNull == false) == wanted
        case .equals(let expected):
            return same(value ?? .null, expected)
        case .notEquals(let expected):
            return !same(value ?? .null, expected)
        case .oneOf(let values):
            return values.contains { same(value ?? .null, $0) }
        case .greater(let bound, let orEqual):
            guard let number = value?.doubleValue else { return false }
            return orEqual ? number >= bound : number > bound
        case .less(let bound, let orEqual):
            guard let number = value?.doubleValue else { return false }
            return orEqual ? number <= bound : number < bound
        case .contains(let needle):
            switch value {
            case .string(let text)?: return needle.stringValue.map { text.contains($0) } ?? false
            case .array(let elements)?: return elements.contains { same($0, needle) }
            default: return false
            }
        case .matches(let pattern):
            guard let text = value?.stringValue, let regex = try? Regex(pattern) else { return false }
            return (try? regex.firstMatch(in: text)) != nil
        case .length(let count):
            switch value {
            case .string(let text)?: return text.count == count
            case .array(let elements)?: return elements.count == count
            case .object(let object)?: return object.count == count
            default: return false
            }
        case .sdkTime(let offset):
            return value?.int64Value == startMs &+ offset
        case .sdkTimeBetween(let low, let high):
            guard let time = value?.int64Value else { return false }
            return (startMs &+ low...startMs &+ high).contains(time)
        }
    }

    /// Deep equality where numbers compare by value (`1` equals `1.0`), as a person reading JSON means it.
    package static func same(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.number(let a), .number(let b)): return a == b || (a.double != nil && a.double == b.double)
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && a.allSatisfy { member in b[member.key].map { same(member.value, $0) } ?? false }
        default: return left == right
        }
    }
}

/// Fields of a JSON object and what each must be: `{"type": "exposure", "screen.type": "home"}`. A field is a
/// dotted path into the object; a segment of digits indexes an array.
package struct FieldMatcher: Sendable {
    package let fields: [(path: [String], matcher: ValueMatcher)]
    package let source: JSONValue

    package static let any = FieldMatcher(fields: [], source: .object([:]))

    package func accepts(_ value: JSONValue, startMs: Int64) -> Bool {
        fields.allSatisfy { $0.matcher.accepts(Self.value(at: $0.path, in: value), startMs: startMs) }
    }

    /// The value at a dotted path; nil when a step is missing.
    package static func value(at path: [String], in root: JSONValue) -> JSONValue? {
        var current = root
        for segment in path {
            if let object = current.objectValue {
                guard let next = object[segment] else { return nil }
                current = next
            } else if let elements = current.arrayValue, let index = Int(segment), elements.indices.contains(index) {
                current = elements[index]
            } else {
                return nil
            }
        }
        return current
    }

    /// The matcher as written, compact: `{"type":"exposure"}`.
    package var described: String { source.description }
}

/// How many of something a scenario expects: exactly `min` when `max` equals it, or a range.
package struct CountRange: Sendable, Equatable, CustomStringConvertible {
    package let min: Int
    package let max: Int?

    package static let atLeastOne = CountRange(min: 1, max: nil)

    package func contains(_ count: Int) -> Bool { count >= min && (max.map { count <= $0 } ?? true) }

    package var description: String {
        switch max {
        case min?: "exactly \(min)"
        case nil: "at least \(min)"
        case let max? where min == 0: "at most \(max)"
        case let max?: "\(min) to \(max)"
        }
    }
}
