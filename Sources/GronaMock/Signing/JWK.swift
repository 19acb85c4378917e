import GronaMockJSON

/// A P-256 public key as a JSON Web Key (RFC 7517, RFC 7518 §6.2), the form JWKS endpoints publish.
package struct JWK: Sendable, Equatable {
    package let kid: String
    package let publicKey: P256PublicKey

    package init(kid: String, publicKey: P256PublicKey) {
        self.kid = kid
        self.publicKey = publicKey
    }

    package var x: String { Base64.urlEncode(publicKey.x) }
    package var y: String { Base64.urlEncode(publicKey.y) }

    /// `{"kty":"EC","crv":"P-256","x":…,"y":…,"kid":…,"use":"sig","alg":"ES256"}` (contract §6).
    package var json: String {
        "{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"\(x)\",\"y\":\"\(y)\",\"kid\":\(JSONText.quoted(kid)),"
            + "\"use\":\"sig\",\"alg\":\"ES256\"}"
    }

    /// The RFC 7638 thumbprint: SHA-256 over the required members in lexicographic order, base64url.
    package var thumbprint: String {
        Base64.urlEncode(SHA256.hash("{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(x)\",\"y\":\"\(y)\"}"))
    }

    /// A JWK Set document (RFC 7517 §5).
    package static func set(_ keys: [JWK]) -> String {
        "{\"keys\":[" + keys.map(\.json).joined(separator: ",") + "]}"
    }
}

extension JWK {
    /// The P-256 keys of a JWKS document (RFC 7517 §5), by `kid`; entries of another type are skipped, as a
    /// verifier that only speaks ES256 would. Throws when the document holds no usable key.
    package static func publicKeys(fromSet bytes: [UInt8]) throws -> [String: P256PublicKey] {
        let entries = try JSONParser().parse(bytes)["keys"]?.arrayValue ?? []
        var keys: [String: P256PublicKey] = [:]
        for entry in entries {
            guard entry["kty"]?.stringValue == "EC", entry["crv"]?.stringValue == "P-256",
                let kid = entry["kid"]?.stringValue, let x = entry["x"]?.stringValue.flatMap(Base64.urlDecode),
                let y = entry["y"]?.stringValue.flatMap(Base64.urlDecode)
            else { continue }
            keys[kid] = try P256PublicKey(x: x, y: y)
        }
        guard !keys.isEmpty else { throw NoKeys() }
        return keys
    }

    /// A JWKS with no P-256 key in it.
    package struct NoKeys: Error, CustomStringConvertible {
        package var description: String { "it holds no P-256 keys" }
    }
}
