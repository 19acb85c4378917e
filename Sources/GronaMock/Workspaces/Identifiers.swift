import GronaMockHTTP
import GronaMockJSON

/// The identifier grammars of contract §1. Anything else is rejected, so no identifier can become a path.
enum Identifiers {
    /// Workspace keys: `[a-z0-9][a-z0-9-]{0,62}`.
    static func isWorkspaceKey(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, bytes.count <= 63, isLowerAlphanumeric(first) else { return false }
        return bytes.dropFirst().allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") }
    }

    /// Campaign and variant ids: `[A-Za-z0-9][A-Za-z0-9_.-]{0,63}`.
    static func isCampaignID(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, bytes.count <= 64, isAlphanumeric(first) else { return false }
        return bytes.dropFirst().allSatisfy {
            isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
        }
    }

    /// Preview tokens: `[A-Za-z0-9_-]{1,64}`.
    static func isPreviewToken(_ text: some StringProtocol) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// Snake-case names such as a decision type from a newer SDK: `[a-z][a-z0-9_]{0,63}`.
    static func isSnakeCase(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, bytes.count <= 64, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z")
        else { return false }
        return bytes.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: "_") }
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isLowerAlphanumeric(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}
