import GronaMockJSON

/// One revision of a workspace's configuration, signed once and served byte-identical until it changes
/// (contract §4): the JWS document, its gzip form, and a strong ETag for each.
package struct SignedConfiguration: Sendable {
    package let workspaceKey: String
    package let revision: Int64
    package let issuedAt: Int64
    /// The JWS in General JSON Serialization, exactly as served.
    package let document: [UInt8]
    package let etag: String
    package let gzipped: [UInt8]
    package let gzipETag: String

    init(workspaceKey: String, stored: StoredConfigRevision) {
        self.workspaceKey = workspaceKey
        revision = stored.revision
        issuedAt = stored.issuedAt
        document = stored.document
        gzipped = Gzip.compress(stored.document)
        etag = Self.etag(revision: stored.revision, bytes: stored.document)
        gzipETag = Self.etag(revision: stored.revision, bytes: gzipped)
    }

    /// `"<revision>-<first 22 base64url characters of SHA-256(bytes)>"`: strong, one per representation.
    private static func etag(revision: Int64, bytes: [UInt8]) -> String {
        "\"\(revision)-\(Base64.urlEncode(SHA256.hash(bytes)).prefix(22))\""
    }
}

/// Builds and signs configuration payloads (contract §4).
enum ConfigurationSigner {
    /// The payload's JSON: the server's fields, then the workspace's config body.
    static func payload(for workspace: Workspace, revision: Int64, issuedAt: Int64) -> [UInt8] {
        var payload: JSONObject = [
            "schemaVersion": 1,
            "workspaceKey": .string(workspace.key),
            "revision": .number(JSONNumber(revision)),
            "issuedAt": .number(JSONNumber(issuedAt)),
        ]
        // A config member never replaces the server's own (a workspace served with allowInvalid may hold one).
        for member in workspace.config where !serverMembers.contains(member.key) {
            payload.set(member.key, member.value)
        }
        return JSONValue.object(payload).serialized()
    }

    /// The payload members the server sets, which a workspace's config may not.
    static let serverMembers = ["schemaVersion", "workspaceKey", "revision", "issuedAt"]

    /// What makes a revision: the payload without its revision and time, and the keys that sign it, by id
    /// and by public key (a rotation, or a key file replaced under the same id, is a new revision even when
    /// the campaigns are the same; otherwise the stored signature of the old key would keep being served).
    static func contentHash(for workspace: Workspace, keys: KeyStore) -> [UInt8] {
        var material = payload(for: workspace, revision: 0, issuedAt: 0)
        for kid in workspace.configKeyIDs {
            material += Array("\n\(kid):\(keys[kid]?.publicKey.spkiBase64 ?? "missing")".utf8)
        }
        return SHA256.hash(material)
    }

    /// Signs a new revision with every config key, in the listed order.
    static func sign(
        _ workspace: Workspace, revision: Int64, issuedAt: Int64, keys: KeyStore
    ) throws(CryptoError) -> StoredConfigRevision {
        var signers: [NamedSigningKey] = []
        for kid in workspace.configKeyIDs {
            guard let key = keys[kid] else { throw CryptoError("no signing key \"\(kid)\"") }
            signers.append(NamedSigningKey(kid: kid, key: key))
        }
        let document = try JWSSigner.general(
            payload: payload(for: workspace, revision: revision, issuedAt: issuedAt), type: .configuration,
            signers: signers)
        return StoredConfigRevision(
            revision: revision, contentHash: contentHash(for: workspace, keys: keys), issuedAt: issuedAt,
            document: document)
    }
}
