import GronaMockJSON

/// Reads the values of a scenario document, each at its path, noting a problem for each that is not what it
/// must be and carrying on, so that one reading reports every problem of a file.
struct ScenarioReader {
    var problems = ProblemList()

    mutating func problem(_ path: JSONPath, _ message: String) {
        problems.add(path, message)
    }

    /// An object whose members are all among `allowed`, with those of `required` present.
    mutating func object(
        _ value: JSONValue?, at path: JSONPath, allowed: [String], required: [String] = [], what: String
    ) -> JSONObject? {
        guard let value else {
            problem(path, "\(what) is required")
            return nil
        }
        guard let object = value.objectValue else {
            problem(path, "\(what) must be an object, not \(Self.shown(value))")
            return nil
        }
        for key in object.keys where !allowed.contains(key) {
            problem(
                path.appending(key),
                "\(what) has no field \(Self.quoted(key)); its fields are \(allowed.joined(separator: ", "))")
        }
        for key in required where object[key] == nil {
            problem(path, "\(what) needs \(Self.quoted(key))")
        }
        return object
    }

    mutating func string(_ value: JSONValue?, at path: JSONPath, what: String) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue, !text.isEmpty else {
            problem(path, "\(what) must be a non-empty string, not \(Self.shown(value))")
            return nil
        }
        return text
    }

    /// A name of `[a-z0-9][a-z0-9-]*`, at most 64 characters: test names are printed and matched by patterns.
    mutating func name(_ value: JSONValue?, at path: JSONPath, what: String) -> String? {
        guard let text = string(value, at: path, what: what) else { return nil }
        let valid =
            text.utf8.count <= 64
            && text.utf8.enumerated().allSatisfy { index, byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || (index > 0 && byte == 0x2D)
            }
        guard valid else {
            problem(
                path, "\(what) must be lowercase letters, digits and '-' ([a-z0-9][a-z0-9-]*), not \(Self.quoted(text))"
            )
            return nil
        }
        return text
    }

    mutating func integer(_ value: JSONValue?, at path: JSONPath, in range: ClosedRange<Int64>, what: String) -> Int64?
    {
        guard let value else { return nil }
        guard let number = value.int64Value, range.contains(number) else {
            problem(
                path,
                "\(what) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(Self.shown(value))"
            )
            return nil
        }
        return number
    }

    mutating func boolean(_ value: JSONValue?, at path: JSONPath, what: String) -> Bool? {
        guard let value else { return nil }
        guard let flag = value.boolValue else {
            problem(path, "\(what) must be true or false, not \(Self.shown(value))")
            return nil
        }
        return flag
    }

    mutating func array(_ value: JSONValue?, at path: JSONPath, what: String, nonEmpty: Bool = false) -> [JSONValue]? {
        guard let value else { return nil }
        guard let elements = value.arrayValue else {
            problem(path, "\(what) must be an array, not \(Self.shown(value))")
            return nil
        }
        if nonEmpty && elements.isEmpty { problem(path, "\(what) must not be empty") }
        return elements
    }

    /// The one member of `object` among `kinds`; a problem when there is none or more than one.
    mutating func discriminator(_ object: JSONObject, at path: JSONPath, kinds: [String], what: String) -> String? {
        let present = kinds.filter { object[$0] != nil }
        guard present.count == 1, let kind = present.first else {
            let names = kinds.map(Self.quoted).joined(separator: ", ")
            problem(
                path,
                present.isEmpty
                    ? "\(what) must have one of \(names)"
                    : "\(what) has \(present.map(Self.quoted).joined(separator: " and ")); give one")
            return nil
        }
        return kind
    }

    static func quoted(_ text: String) -> String {
        JSONText.quoted(text.count > 60 ? String(text.prefix(60)) + "…" : text)
    }

    static func shown(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): quoted(text)
        case .number(let number): number.text
        case .bool(let flag): String(flag)
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
