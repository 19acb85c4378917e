import GronaMockJSON

/// Verifies a grant as an order backend must (contract §6): the ES256 signature with the key its `kid`
/// names, `typ` `grona-grant+jwt`, `aud` the workspace, and `nbf`/`exp` with 60 s of leeway.
package enum GrantVerifier {
    package static let leewaySeconds: Int64 = 60

    /// The exact reason a grant is refused; never quotes the token.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case token(JWSVerifier.Failure)
        case malformedClaims
        case wrongAudience(expected: String, found: String)
        case notYetValid(notBefore: Int64, now: Int64)
        case expired(expiresAt: Int64, now: Int64)

        package var description: String {
            switch self {
            case .token(let failure): "\(failure)"
            case .malformedClaims: "the claims are missing a required claim or have one of the wrong type"
            case .wrongAudience(let expected, let found):
                "aud is \(JSONText.quoted(found.prefix(64))), not the workspace \"\(expected)\""
            case .notYetValid(let notBefore, let now):
                "not valid before \(notBefore) (now \(now), \(notBefore - now) s ahead, beyond the \(leewaySeconds) s leeway)"
            case .expired(let expiresAt, let now):
                "expired at \(expiresAt) (now \(now), \(now - expiresAt) s ago, beyond the \(leewaySeconds) s leeway)"
            }
        }
    }

    /// The grant's claims when every check passes. `audience` nil skips the audience check (the caller
    /// then checks `aud` itself).
    package static func verify(
        _ token: String, keys: [String: P256PublicKey], audience: String?, now: Int64
    ) throws(Failure) -> GrantClaims {
        let verified: JWSVerifier.Verified
        do {
            verified = try JWSVerifier.verifyCompact(token, keys: keys, type: .grant)
        } catch {
            throw .token(error)
        }
        guard let claims = GrantClaims(json: verified.payload) else { throw .malformedClaims }
        if let audience, claims.audience != audience {
            throw .wrongAudience(expected: audience, found: claims.audience)
        }
        if now + leewaySeconds < claims.notBefore { throw .notYetValid(notBefore: claims.notBefore, now: now) }
        if now - leewaySeconds >= claims.expiresAt { throw .expired(expiresAt: claims.expiresAt, now: now) }
        return claims
    }
}
