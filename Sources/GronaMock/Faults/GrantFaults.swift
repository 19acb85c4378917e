import GronaMockJSON

/// The grant faults (contract §6, §8): grants an SDK or order backend must refuse, each for one exact reason.
/// Everything else about them is right: the real campaign, variant and treatment, signed with the workspace's
/// current grant key (except `unsigned`).
enum GrantFaults {
    /// How far past the verifiers' 60 s leeway an expired or not-yet-valid grant is.
    static let marginSeconds: Int64 = 60

    /// The claims as the fault issues them; other actions leave them as they are. A shifted window or
    /// another customer or audience gets the grant id that grant would have, as the issuer derives it.
    static func apply(_ fault: FaultKind, to claims: [GrantClaims], ttl: Int64, now: Int64) -> [GrantClaims] {
        let ttl = max(1, ttl)
        let beyondLeeway = GrantVerifier.leewaySeconds + marginSeconds
        return claims.map { original in
            var claims = original
            switch fault {
            case .expired:
                // exp + 60 s is already past.
                claims.expiresAt = now - beyondLeeway
                claims.notBefore = claims.expiresAt - ttl
                claims.issuedAt = claims.notBefore
            case .notYetValid:
                // nbf is beyond now + 60 s.
                claims.notBefore = now + beyondLeeway
                claims.expiresAt = claims.notBefore + ttl
            case .otherCustomer:
                claims.subject = original.subject + "-other"
            case .otherAudience:
                claims.audience = original.audience + "-other"
            default:
                return original
            }
            claims.grantID = GrantIssuer.grantID(
                workspace: claims.audience, customer: claims.subject, campaign: claims.campaignID,
                variant: claims.variantID, window: claims.notBefore)
            return claims
        }
    }

    /// Unsecured JWTs (RFC 7519 §6): `{"alg":"none",…}` and an empty signature, under the grant key's `kid`
    /// so that only the `alg` check can catch them.
    static func unsigned(_ claims: [GrantClaims], kid: String) -> [String] {
        let header = "{\"alg\":\"none\",\"kid\":\(JSONText.quoted(kid)),\"typ\":\"\(JOSEType.grant.rawValue)\"}"
        return claims.map { Base64.urlEncode(Array(header.utf8)) + "." + Base64.urlEncode($0.json) + "." }
    }
}
