import GronaMockJSON

/// One problem found in a workspace: where (a JSON path) and why (a sentence a person can act on).
package struct ValidationProblem: Sendable, Equatable, CustomStringConvertible {
    package enum Severity: String, Sendable {
        /// The workspace is not served (unless loaded deliberately as invalid).
        case error
        /// Served anyway: a decision type from a newer SDK, a field grona-mock does not know.
        case warning
    }

    package let severity: Severity
    package let path: JSONPath
    package let reason: String
    /// An error that `allowInvalid`, which serves a workspace with content errors on purpose, never relaxes: an
    /// identifier that breaks its grammar or names the wrong workspace (contract §1: no id can become a path),
    /// or what the server needs to serve the workspace at all (its key, secret keys and signing keys: a
    /// configuration nobody can sign, or grants nobody can ask for, would test no SDK).
    package let blocksServing: Bool

    package init(_ severity: Severity, _ path: JSONPath, _ reason: String, blocksServing: Bool = false) {
        self.severity = severity
        self.path = path
        self.reason = reason
        self.blocksServing = blocksServing
    }

    /// `campaigns[2].placement: unknown placement "home_topp"` (contract §4, Validation).
    package var description: String {
        path.isRoot ? reason : "\(path): \(reason)"
    }
}

/// Collects problems while typed readers pull values out of a JSON document; each reader reports a
/// missing or mistyped value at its path and returns nil, so validation goes on and reports everything.
struct ProblemCollector {
    private(set) var problems: [ValidationProblem] = []

    var hasErrors: Bool { problems.contains { $0.severity == .error } }

    mutating func error(_ path: JSONPath, _ reason: String, blocksServing: Bool = false) {
        problems.append(ValidationProblem(.error, path, reason, blocksServing: blocksServing))
    }

    /// Marks every error at or under `prefix` as one that `allowInvalid` never relaxes (see `blocksServing`).
    mutating func markBlocksServing(under prefix: JSONPath) {
        problems = problems.map { problem in
            guard problem.severity == .error, !problem.blocksServing,
                problem.path.components.starts(with: prefix.components)
            else { return problem }
            return ValidationProblem(.error, problem.path, problem.reason, blocksServing: true)
        }
    }

    /// `text` at `path` breaks the grammar of `kind`.
    mutating func identifierError(_ path: JSONPath, _ kind: IdentifierKind, _ text: String) {
        error(path, kind.problem(with: text), blocksServing: true)
    }

    mutating func warning(_ path: JSONPath, _ reason: String) {
        problems.append(ValidationProblem(.warning, path, reason))
    }

    /// Warns about members not in `known`: usually a typo that would otherwise pass silently.
    mutating func unknownMembers(of object: JSONObject, at path: JSONPath, known: Set<String>) {
        for member in object where !known.contains(member.key) {
            warning(path.appending(member.key), "unknown field \"\(member.key)\" is ignored")
        }
    }

    // MARK: - Typed readers

    mutating func object(_ value: JSONValue?, at path: JSONPath, required: Bool = true) -> JSONObject? {
        guard let value else {
            if required { error(path, "is required (an object)") }
            return nil
        }
        guard let object = value.objectValue else {
            error(
                path,
                path.isRoot
                    ? "the workspace must be a JSON object, not \(value.described)"
                    : "must be an object, not \(value.described)")
            return nil
        }
        return object
    }

    mutating func array(_ value: JSONValue?, at path: JSONPath, required: Bool = true, nonEmpty: Bool = false)
        -> [JSONValue]?
    {
        guard let value else {
            if required { error(path, "is required (a list)") }
            return nil
        }
        guard let array = value.arrayValue else {
            error(path, "must be a list, not \(value.described)")
            return nil
        }
        if nonEmpty && array.isEmpty { error(path, "must not be empty") }
        return array
    }

    mutating func string(
        _ value: JSONValue?, at path: JSONPath, required: Bool = true, nonEmpty: Bool = true
    ) -> String? {
        guard let value else {
            if required { error(path, "is required (a string)") }
            return nil
        }
        guard let text = value.stringValue else {
            error(path, "must be a string, not \(value.described)")
            return nil
        }
        if nonEmpty && text.isEmpty {
            error(path, "must not be empty")
            return nil
        }
        return text
    }

    /// A string that must name a known case of `vocabulary`; the message lists the known names.
    mutating func oneOf<Name: Vocabulary>(
        _ value: JSONValue?, at path: JSONPath, _ vocabulary: Name.Type, required: Bool = true
    ) -> Name? {
        guard let text = string(value, at: path, required: required) else { return nil }
        guard let name = Name.known(text) else {
            error(path, "unknown \(Name.noun) \(Quote.text(text)); expected one of \(Name.knownNames)")
            return nil
        }
        return name
    }

    mutating func integer(
        _ value: JSONValue?, at path: JSONPath, in range: ClosedRange<Int64>? = nil, required: Bool = true
    ) -> Int64? {
        guard let value else {
            if required { error(path, "is required (an integer)") }
            return nil
        }
        guard let number = value.int64Value else {
            if let numeric = value.numberValue, numeric.isInteger {
                // Whole, but beyond 64 bits: out of any range a field allows.
                let limit = range.map { "must be from \($0.lowerBound) to \($0.upperBound)" } ?? "is too large"
                error(path, "\(limit), not \(numeric.text.prefix(30))")
            } else if let numeric = value.numberValue {
                error(path, "must be an integer (a whole number), not \(numeric.text.prefix(30))")
            } else {
                error(path, "must be an integer, not \(value.described)")
            }
            return nil
        }
        if let range, !range.contains(number) {
            error(path, "must be from \(range.lowerBound) to \(range.upperBound), not \(number)")
            return nil
        }
        return number
    }

    mutating func bool(_ value: JSONValue?, at path: JSONPath, required: Bool = true) -> Bool? {
        guard let value else {
            if required { error(path, "is required (true or false)") }
            return nil
        }
        guard let flag = value.boolValue else {
            error(path, "must be true or false, not \(value.described)")
            return nil
        }
        return flag
    }
}

extension JSONValue {
    /// The value's kind with its article, for messages: "an array", "a string", "null".
    var described: String {
        switch self {
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        default: "a \(typeName)"
        }
    }
}

/// Quotes a value from the input for a message, cut short so a 4 KB string cannot flood a log.
enum Quote {
    static func text(_ text: String) -> String {
        if isPlain(text) { return "\"" + text + "\"" }
        return text.count > 80 ? JSONText.quoted(text.prefix(77) + "...") : JSONText.quoted(text)
    }

    /// `text(value)` appended to `message`, with no string of its own for the common short id.
    static func append(_ value: String, to message: inout String) {
        guard isPlain(value) else {
            message += text(value)
            return
        }
        message += "\""
        message += value
        message += "\""
    }

    /// Most ids are short printable ASCII, which JSON quotes as they are: a violation's message quotes two or
    /// three, and a dense workspace has hundreds of thousands of violations (issue 32).
    static func isPlain(_ text: String) -> Bool {
        text.utf8.count <= longestPlain && text.utf8.allSatisfy(isPlain)
    }

    /// The longest text quoted as it is; a longer one is cut short.
    static let longestPlain = 80

    /// Whether `byte` is printable ASCII other than a quote or backslash.
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C
    }
}
