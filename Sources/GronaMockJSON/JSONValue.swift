/// A JSON value (RFC 8259 §3) as the engine reads workspace files and event batches and writes payloads.
///
/// Equality is exact: strings and keys compare by UTF-8 bytes, numbers by their text, objects member by member
/// in order. So `a == b` exactly when `a.serialized() == b.serialized()`, which is what deciding "did the signed
/// payload change" needs.
public enum JSONValue: Sendable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.number(let left), .number(let right)): left == right
        case (.string(let left), .string(let right)): JSONObject.sameKey(left, right)
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)): left == right
        default: false
        }
    }

    /// The compact serialization, so that test failures and log lines show JSON.
    public var description: String { String(decoding: serialized(), as: UTF8.self) }

    /// The JSON Schema name of the value's type, for messages such as "expected a string, found a number".
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    public var isNull: Bool {
        if case .null = self { true } else { false }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    public var numberValue: JSONNumber? {
        if case .number(let value) = self { value } else { nil }
    }

    /// The number when it is an integer that fits Int64 exactly (see `JSONNumber.int64`).
    public var int64Value: Int64? { numberValue?.int64 }

    /// The number as the nearest finite Double (see `JSONNumber.double`).
    public var doubleValue: Double? { numberValue?.double }

    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { value } else { nil }
    }

    /// The member named `key` when this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element at `index` when this is an array that long.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The value at `path`, or nil where a key is missing, an index is out of range or a type does not match.
    public func value(at path: JSONPath) -> JSONValue? {
        var current = self
        for component in path.components {
            let next: JSONValue?
            switch component {
            case .key(let key): next = current[key]
            case .index(let index): next = current[index]
            }
            guard let next else { return nil }
            current = next
        }
        return current
    }
}

extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// Literals make payloads built in code read like the contract's examples. There is deliberately no float
    /// literal: `1e400` would compile (with a warning) to an infinity that JSON cannot hold.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }

    public init(integerLiteral value: Int64) {
        self = .number(JSONNumber(value))
    }

    public init(stringLiteral value: String) {
        self = .string(value)
    }

    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object.set(key, value) }
        self = .object(object)
    }
}
