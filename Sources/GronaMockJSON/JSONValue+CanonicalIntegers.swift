extension JSONValue {
    /// The same value with every integer written with a fraction, an exponent or a sign on zero (`1041.0`,
    /// `1.041e3`, `-0`) written as its plain integer text (`1041`, `0`); every other value is kept as written.
    ///
    /// JSON Schema reads those as one integer (`JSONNumber.isInteger`), so the mock accepts them; what it serves
    /// again (a signed configuration) carries the plain form, which every client that reads the field as a
    /// machine integer takes. Linear in the value; recursion is bounded by the parser's depth limit. A value
    /// with nothing to rewrite is returned as it is, sharing its storage (a clone's configuration costs no copy).
    public func canonicalizingIntegers() -> JSONValue {
        rewritingIntegers() ?? self
    }

    /// The rewritten value, or nil when nothing in it needs rewriting.
    private func rewritingIntegers() -> JSONValue? {
        switch self {
        case .number(let number):
            guard number.isIntegerWrittenAsDecimal, let integer = number.int64 else { return nil }
            return .number(JSONNumber(integer))
        case .array(let elements):
            // Each element is looked at once: a copy is made at the first rewrite, never before.
            var rewritten: [JSONValue] = []
            for (index, element) in elements.enumerated() {
                guard let replacement = element.rewritingIntegers() else { continue }
                if rewritten.isEmpty { rewritten = elements }
                rewritten[index] = replacement
            }
            return rewritten.isEmpty ? nil : .array(rewritten)
        case .object(let object):
            var rewritten: [JSONObject.Member] = []
            for (index, member) in object.members.enumerated() {
                guard let replacement = member.value.rewritingIntegers() else { continue }
                if rewritten.isEmpty { rewritten = object.members }
                rewritten[index].value = replacement
            }
            return rewritten.isEmpty ? nil : .object(JSONObject(uniqueMembers: rewritten))
        case .null, .bool, .string:
            return nil
        }
    }
}
