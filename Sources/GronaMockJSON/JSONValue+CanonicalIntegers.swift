extension JSONValue {
    /// The same value with every integer written with a fraction, an exponent or a sign on zero (`1041.0`,
    /// `1.041e3`, `-0`) written as its plain integer text (`1041`, `0`); every other value is kept as written.
    ///
    /// JSON Schema reads those as one integer (`JSONNumber.isInteger`), so the mock accepts them; what it serves
    /// again (a signed configuration) carries the plain form, which every client that reads the field as a
    /// machine integer takes. Linear in the value; recursion is bounded by the parser's depth limit.
    public func canonicalizingIntegers() -> JSONValue {
        switch self {
        case .number(let number):
            guard number.isIntegerWrittenAsDecimal, let integer = number.int64 else { return self }
            return .number(JSONNumber(integer))
        case .array(let elements):
            return .array(elements.map { $0.canonicalizingIntegers() })
        case .object(let object):
            return .object(
                JSONObject(uniqueMembers: object.members.map { ($0.key, $0.value.canonicalizingIntegers()) }))
        case .null, .bool, .string:
            return self
        }
    }
}
