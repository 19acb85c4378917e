import GronaHTTP
import GronaJSON

/// A P-256 package key as a JSON Web Key (RFC 7517, RFC 7518 §6.2), the form JWKS endpoints publish.
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
