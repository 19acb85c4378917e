import GronaMockPlatform

/// What is served now, readable from any thread without waiting for a change in progress: the entries by key
/// and by secret key, how many of them are clones, and the files whose last load failed.
///
/// Every lookup is a hash lookup, so serving a grants request or making a clone costs the same with 10,000
/// clones as with 10 (issue 28). Only `WorkspaceRegistry` writes here, one change at a time.
final class ServedWorkspaces: Sendable {
    private struct State {
        var entries: [String: WorkspaceRegistry.Entry] = [:]
        var secrets = SecretIndex()
        var clones = 0
        /// The keys served from files, so that a directory scan walks the files, never the clones.
        var fileKeys: Set<String> = []
        /// Files not served as written, with their first error, for health.
        var fileErrors: [String: String] = [:]

        mutating func remove(_ key: String) -> WorkspaceRegistry.Entry? {
            guard let entry = entries.removeValue(forKey: key) else { return nil }
            secrets.remove(entry.workspace.secretKeys)
            if entry.origin == .clone { clones -= 1 }
            if entry.origin == .file { fileKeys.remove(key) }
            return entry
        }
    }

    private let state = Mutex(State())

    func entry(for key: String) -> WorkspaceRegistry.Entry? {
        state.withLock { $0.entries[key] }
    }

    /// The workspace whose secret key `secret` is (see `SecretIndex`).
    func entry(forSecret secret: String) -> WorkspaceRegistry.Entry? {
        let digest = SecretIndex.digest(secret)
        guard let entry = state.withLock({ state in state.secrets.key(for: digest).flatMap { state.entries[$0] } })
        else { return nil }
        // The digest matched; the secret itself is confirmed in constant time.
        return entry.workspace.secretKeys.contains { ConstantTime.equals($0, secret) } ? entry : nil
    }

    /// The served workspace other than `key` that holds one of `secrets`, if any.
    func owner(ofAny secrets: [String], except key: String) -> WorkspaceRegistry.Entry? {
        state.withLock { state in
            for secret in secrets {
                if let owner = state.secrets.key(for: SecretIndex.digest(secret)), owner != key {
                    return state.entries[owner]
                }
            }
            return nil
        }
    }

    /// Serves `entry` under its key in place of what was there.
    func serve(_ entry: WorkspaceRegistry.Entry) {
        let key = entry.workspace.key
        state.withLock { state in
            _ = state.remove(key)
            state.entries[key] = entry
            state.secrets.insert(entry.workspace.secretKeys, for: key)
            if entry.origin == .clone { state.clones += 1 }
            if entry.origin == .file { state.fileKeys.insert(key) }
        }
    }

    /// Stops serving `key`; returns what was served.
    @discardableResult
    func remove(_ key: String) -> WorkspaceRegistry.Entry? {
        state.withLock { $0.remove(key) }
    }

    /// Stops serving every workspace that is not from a file (a global reset); returns their keys.
    func removeRuntimeEntries() -> [String] {
        state.withLock { state in
            let keys = state.entries.keys.filter { !state.fileKeys.contains($0) }
            for key in keys { _ = state.remove(key) }
            return keys.sorted()
        }
    }

    /// The file-served entries, by key: what a directory scan compares with the files it finds.
    var fileEntries: [WorkspaceRegistry.Entry] {
        state.withLock { state in state.fileKeys.compactMap { state.entries[$0] } }
    }

    var keys: [String] { state.withLock { $0.entries.keys.sorted() } }
    var count: Int { state.withLock { $0.entries.count } }
    var cloneCount: Int { state.withLock { $0.clones } }

    // MARK: - Files that failed to load

    func recordFileError(_ path: String, _ message: String) {
        state.withLock { $0.fileErrors[path] = message }
    }

    func clearFileError(_ path: String) {
        state.withLock { $0.fileErrors[path] = nil }
    }

    /// Forgets the errors of files that are no longer in the directory.
    func keepFileErrors(of paths: Set<String>) {
        state.withLock { $0.fileErrors = $0.fileErrors.filter { paths.contains($0.key) } }
    }

    /// The files whose last load failed, by path, with the first error of each.
    var fileErrors: [(file: String, message: String)] {
        state.withLock { $0.fileErrors }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

/// The served workspaces by secret key, for the grants endpoint, as a table of the keys' SHA-256 digests.
///
/// A lookup hashes the presented secret and looks up the digest: its time depends on the digest, which says
/// nothing about how close a guess came to a real secret, and not on how many workspaces are served (the
/// grants endpoint once compared every secret of every workspace in turn). The entry found is confirmed by a
/// constant-time comparison of the secret itself.
struct SecretIndex {
    /// A SHA-256 digest as four words: hashable without an allocation per lookup.
    struct Digest: Hashable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        static func == (lhs: Digest, rhs: Digest) -> Bool { lhs.words == rhs.words }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    private var owners: [Digest: String] = [:]

    static func digest(_ secret: String) -> Digest {
        let bytes = SHA256.hash(secret)
        func word(_ at: Int) -> UInt64 {
            bytes[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        return Digest(words: (word(0), word(8), word(16), word(24)))
    }

    func key(for digest: Digest) -> String? { owners[digest] }

    mutating func insert(_ secrets: [String], for key: String) {
        for secret in secrets { owners[Self.digest(secret)] = key }
    }

    mutating func remove(_ secrets: [String]) {
        for secret in secrets { owners[Self.digest(secret)] = nil }
    }
}
