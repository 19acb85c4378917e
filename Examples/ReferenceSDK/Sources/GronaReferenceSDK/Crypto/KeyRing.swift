import Foundation

/// Verification keys by key id, in the order the options gave them: for `configKeys` "the current and the next
/// key, so a key rotation needs no app release" (contract, SDK's side).
public struct KeyRing: Sendable {
    public struct Entry: Sendable {
        public let keyID: String
        public let key: P256PublicKey
    }

    public let entries: [Entry]

    public init(_ entries: [Entry]) {
        self.entries = entries
    }

    /// Keys from `[(kid, base64 SPKI DER)]` as the SDK's options take them (contract §2). Throws a sentence
    /// naming the first key id that is malformed or whose key is not a P-256 SPKI.
    public init(parsing pairs: [(keyID: String, spki: String)]) throws(OptionError) {
        var entries: [Entry] = []
        for (keyID, spki) in pairs {
            guard Identifiers.isKeyID(keyID) else {
                throw OptionError("key id \"\(keyID)\" is not [A-Za-z0-9._-]{1,64} (contract §1)")
            }
            guard entries.allSatisfy({ $0.keyID != keyID }) else {
                throw OptionError("key id \"\(keyID)\" is given twice")
            }
            guard let der = Data(base64Encoded: spki), let key = P256PublicKey(spki: Array(der)) else {
                throw OptionError("key \"\(keyID)\" is not the base64 SubjectPublicKeyInfo DER of a P-256 key")
            }
            entries.append(Entry(keyID: keyID, key: key))
        }
        self.entries = entries
    }

    public subscript(keyID: String) -> P256PublicKey? {
        entries.first { $0.keyID == keyID }?.key
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// Only the first key (the current one).
    public var firstOnly: KeyRing { KeyRing(Array(entries.prefix(1))) }
}

/// Options the SDK cannot work with, with a sentence saying which and why.
public struct OptionError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The identifier forms of contract §1.
public enum Identifiers {
    /// Workspace keys: `[a-z0-9][a-z0-9-]{0,62}`.
    public static func isWorkspaceKey(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...63).contains(bytes.count), isLowerAlphanumeric(bytes[0]) else { return false }
        return bytes.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") }
    }

    /// Key ids: `[A-Za-z0-9._-]{1,64}`.
    public static func isKeyID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return (1...64).contains(bytes.count) && bytes.allSatisfy { isAlphanumeric($0) || "._-".utf8.contains($0) }
    }

    /// Campaign and variant ids: `[A-Za-z0-9][A-Za-z0-9_.-]{0,63}`.
    public static func isCampaignID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...64).contains(bytes.count), isAlphanumeric(bytes[0]) else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || "_.-".utf8.contains($0) }
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isLowerAlphanumeric(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
