import GronaMockPlatform

/// The signing keys of `keys/`: one P-256 private key per `<kid>.pem` (contract §2).
package struct KeyStore: Sendable {
    /// Key ids are file names, so they are held to `[A-Za-z0-9._-]{1,64}` (contract §1): no id can
    /// become a path.
    package static func isValidKeyID(_ kid: some StringProtocol) -> Bool { IdentifierKind.keyID.isValid(kid) }

    package private(set) var keys: [String: P256SigningKey]
    package let directory: String

    package init(directory: String, keys: [String: P256SigningKey]) {
        self.directory = directory
        self.keys = keys
    }

    /// Every `*.pem` in `directory`; other files (the README) are ignored. Problems are collected per
    /// file, so one bad key is reported without hiding the others.
    package static func load(from directory: String) throws(FileSystem.Failure) -> (KeyStore, problems: [String]) {
        var keys: [String: P256SigningKey] = [:]
        var problems: [String] = []
        for name in try FileSystem.list(directory) where name.hasSuffix(".pem") {
            let kid = String(name.dropLast(4))
            guard isValidKeyID(kid) else {
                problems.append("\(directory)/\(name): the key id \"\(kid)\" is not [A-Za-z0-9._-]{1,64}")
                continue
            }
            do {
                let pem = try FileSystem.read(directory + "/" + name, maxBytes: 64 * 1024)
                keys[kid] = try P256SigningKey(pem: String(decoding: pem, as: UTF8.self))
            } catch {
                problems.append("\(directory)/\(name): \(error)")
            }
        }
        return (KeyStore(directory: directory, keys: keys), problems)
    }

    package subscript(kid: String) -> P256SigningKey? { keys[kid] }

    /// Key ids in a stable order.
    package var keyIDs: [String] { keys.keys.sorted() }

    /// Adds a key in memory (rotation and tests).
    package mutating func insert(_ key: P256SigningKey, kid: String) {
        keys[kid] = key
    }
}
