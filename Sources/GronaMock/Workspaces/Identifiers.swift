/// The identifier grammars of contract §1 and §3, one validator per kind, used by every path that takes one:
/// workspace files, `PUT`, clones, the control routes' path segments and queries, and the test kit. Anything
/// else is rejected, so no identifier can become a path, and `allowInvalid` (which relaxes content checks)
/// never relaxes them.
package enum IdentifierKind: String, Sendable, CaseIterable {
    /// `[a-z0-9][a-z0-9-]{0,62}`: a file name and a URL segment.
    case workspaceKey
    /// `[A-Za-z0-9._-]{1,64}`, never `.` or `..`: the name of a key file.
    case keyID
    /// `[A-Za-z0-9][A-Za-z0-9_.-]{0,63}`, for campaigns and variants alike.
    case campaignID
    case variantID
    /// `[A-Za-z0-9_-]{1,64}`.
    case previewToken
    /// `^[!-~]{8,200}$`: printable ASCII without spaces. Never quoted back in a message.
    case secretKey

    /// The grammar, as messages show it.
    package var grammar: String {
        switch self {
        case .workspaceKey: "[a-z0-9][a-z0-9-]{0,62}"
        case .keyID: "[A-Za-z0-9._-]{1,64}"
        case .campaignID, .variantID: "[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"
        case .previewToken: "[A-Za-z0-9_-]{1,64}"
        case .secretKey: "8 to 200 printable ASCII characters without spaces"
        }
    }

    /// The kind's name in a sentence: "a workspace key".
    package var described: String {
        switch self {
        case .workspaceKey: "a workspace key"
        case .keyID: "a key id"
        case .campaignID: "a campaign id"
        case .variantID: "a variant id"
        case .previewToken: "a preview token"
        case .secretKey: "a secret key"
        }
    }

    package func isValid(_ text: some StringProtocol) -> Bool {
        let bytes = text.utf8
        switch self {
        case .workspaceKey:
            guard let first = bytes.first, bytes.count <= 63, Self.isLowerAlphanumeric(first) else { return false }
            return bytes.allSatisfy { Self.isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") }
        case .keyID:
            return (1...64).contains(bytes.count) && text != "." && text != ".."
                && bytes.allSatisfy {
                    Self.isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                        || $0 == UInt8(ascii: "-")
                }
        case .campaignID, .variantID:
            guard let first = bytes.first, bytes.count <= 64, Self.isAlphanumeric(first) else { return false }
            return bytes.allSatisfy {
                Self.isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
            }
        case .previewToken:
            return (1...64).contains(bytes.count)
                && bytes.allSatisfy { Self.isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
        case .secretKey:
            return (8...200).contains(bytes.count) && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F }
        }
    }

    /// `text` when it is valid; otherwise throws the error that names the kind, its grammar and where it was
    /// given (`the path`, `?workspace`, `workspaceKey`).
    @discardableResult
    package func validated(_ text: String, given field: String? = nil) throws(InvalidIdentifier) -> String {
        guard isValid(text) else { throw InvalidIdentifier(kind: self, text: text, field: field) }
        return text
    }

    /// The sentence for an invalid `text` of this kind: the text quoted (cut short), except a secret's.
    package func problem(with text: String) -> String {
        switch self {
        case .secretKey: "is not \(described): it must be \(grammar)"
        default: "\(Quote.text(text)) is not \(described) (\(grammar))"
        }
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isLowerAlphanumeric(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}

/// An identifier that does not match its grammar, wherever it came from (a path segment, a query, a body).
package struct InvalidIdentifier: Error, Sendable, Equatable, CustomStringConvertible {
    package let kind: IdentifierKind
    /// Where it was given, for the message: `workspaceKey`, `the path`, `?workspace`.
    package let field: String?
    private let problem: String

    package init(kind: IdentifierKind, text: String, field: String? = nil) {
        self.kind = kind
        self.field = field
        problem = kind.problem(with: text)
    }

    /// `workspaceKey: "Bad_Key" is not a workspace key ([a-z0-9][a-z0-9-]{0,62})`; a secret is never shown.
    package var description: String {
        if let field { "\(field): \(problem)" } else { problem }
    }
}

/// The grammars that are not identifiers but are checked as strictly.
enum Identifiers {
    /// Snake-case names such as a decision type from a newer SDK: `[a-z][a-z0-9_]{0,63}`.
    static func isSnakeCase(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, bytes.count <= 64, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z")
        else { return false }
        return bytes.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: "_")
        }
    }
}
