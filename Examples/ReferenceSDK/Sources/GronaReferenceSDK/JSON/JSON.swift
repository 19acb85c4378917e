/// A JSON value (RFC 8259) whose objects keep their members in document order.
///
/// Foundation's `JSONSerialization` loses the order of an object's members, and on Linux reads `1` and `true` as
/// the same `NSNumber`. The SDK needs both: `configKeys` are "the current and the next key" in that order
/// (contract, SDK's side), a bool in targeting must not equal 1, and a slot's `body` is the component "exactly as
/// the configuration has it". Numbers are held as `Double`, exact for every integer the contract uses (epoch
/// milliseconds, money in minor units, weights) since they are all below 2^53.
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The number as an integer, when it is one exactly (no fraction, within ±2^53).
    public var int64Value: Int64? {
        guard case .number(let number) = self, number.rounded() == number, abs(number) <= 9_007_199_254_740_992
        else { return nil }
        return Int64(number)
    }

    public var arrayValue: [JSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// The member `key` of an object; nil for a missing member and for anything that is not an object.
    public subscript(key: String) -> JSON? {
        objectValue?[key]
    }

    /// An integer as a JSON number.
    public static func integer(_ value: Int64) -> JSON { .number(Double(value)) }

    /// A string, or null for nil.
    public static func optionalString(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
}

/// An object's members in document order. Looking a member up is a linear scan: the SDK's objects are small.
public struct JSONObject: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSON
    }

    public private(set) var members: [Member] = []

    public init() {}

    public init(_ pairs: KeyValuePairs<String, JSON>) {
        for (key, value) in pairs { self[key] = value }
    }

    public var keys: [String] { members.map(\.key) }
    public var isEmpty: Bool { members.isEmpty }
    public var count: Int { members.count }

    /// Setting a member replaces it in place, or appends it; setting nil removes it.
    public subscript(key: String) -> JSON? {
        get { members.first { $0.key == key }?.value }
        set {
            let index = members.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append(Member(key: key, value: value))
            case (nil, nil): break
            }
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByIntegerLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .number(Double(value)) }

    public init(dictionaryLiteral elements: (String, JSON)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
