/// Decides which grants a customer gets and signs them (contract §6).
package enum GrantIssuer {
    package static let issuer = "grona-mock"

    /// Why no grants could be signed for a workspace.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// The grants `customerID` holds at `now`: one for each live, scheduled campaign assigned by customer in
    /// which the customer is not held out and is assigned a variant whose component is an offer.
    package static func claims(for customerID: String, in workspace: Workspace, now: Int64) -> [GrantClaims] {
        guard !Assignment.isHeldOut(customerID, by: workspace.holdout) else { return [] }
        let ttl = max(1, workspace.grantTTLSeconds)
        // Grant windows: within one, a grant keeps its jti, nbf and exp; the next window is a new grant.
        let notBefore = now >= 0 ? now / ttl * ttl : (now - ttl + 1) / ttl * ttl
        return workspace.campaigns.compactMap { campaign in
            guard campaign.assignmentUnit == .customer, campaign.isActive(at: now),
                let variant = Assignment.variant(of: campaign, for: customerID), let treatment = variant.treatment
            else { return nil }
            return GrantClaims(
                issuer: issuer, audience: workspace.key, subject: customerID,
                grantID: grantID(
                    workspace: workspace.key, customer: customerID, campaign: campaign.id,
                    variant: variant.id, window: notBefore),
                issuedAt: now, notBefore: notBefore, expiresAt: notBefore + ttl, campaignID: campaign.id,
                variantID: variant.id, placement: campaign.placement.rawValue, treatment: treatment,
                demo: workspace.demoMode)
        }
    }

    /// Compact JWS for each claim set, signed afresh with the first grant key: `{"alg":"ES256","kid":…,
    /// "typ":"grona-grant+jwt"}`.
    package static func sign(_ claims: [GrantClaims], workspace: Workspace, keys: KeyStore) throws(Failure) -> [String]
    {
        guard let kid = workspace.grantKeyIDs.first, let key = keys[kid] else {
            throw Failure(description: "workspace \"\(workspace.key)\" has no grant key to sign with")
        }
        let signer = NamedSigningKey(kid: kid, key: key)
        var tokens: [String] = []
        for claim in claims {
            do {
                tokens.append(try JWSSigner.compact(payload: claim.json, type: .grant, signer: signer))
            } catch {
                throw Failure(description: "signing a grant failed: \(error)")
            }
        }
        return tokens
    }

    /// `grt_` and 32 hex digits derived from what identifies the grant, so the same grant in the same window
    /// has the same id on every call and after a restart, and any other grant a different one.
    static func grantID(workspace: String, customer: String, campaign: String, variant: String, window: Int64) -> String
    {
        let digest = SHA256.hash(
            ["grona-mock grant", workspace, customer, campaign, variant, String(window)].joined(separator: "\u{0}"))
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = Array("grt_".utf8)
        for byte in digest.prefix(16) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
