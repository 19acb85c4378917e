import GronaMock

/// The configurations the fleet has seen, verified once each against the workspace's JWKS (contract §4: every
/// signature must verify with the key its `kid` names), and shared by the installs that hold them. A body
/// byte-identical to one already verified verifies the same way, so it is not verified again; the `ETag` only
/// finds the candidate, since a service under test could reuse one for other bytes.
struct ConfigStore {
    let keys: [String: P256PublicKey]
    let workspace: String
    private(set) var configs: [FleetConfig] = []
    private(set) var etags: [String?] = []
    private var bodies: [[UInt8]] = []
    private var byETag: [String: Int] = [:]

    init(keys: [String: P256PublicKey], workspace: String) {
        self.keys = keys
        self.workspace = workspace
    }

    /// Why a configuration was refused.
    struct Rejection: Error, CustomStringConvertible {
        let description: String
    }

    /// The index of the verified configuration in `body`, or why it was refused.
    mutating func accept(_ body: [UInt8], etag: String?) -> Result<Int, Rejection> {
        if let etag, let known = byETag[etag], bodies[known] == body { return .success(known) }
        let payload: [UInt8]
        do {
            let (verifiedPayload, checks) = try JWSVerifier.verifyGeneral(body, keys: keys, type: .configuration)
            if let failed = checks.first(where: { !$0.isValid }), case .failure(let failure) = failed.result {
                return .failure(Rejection(description: "signature \(failed.kid ?? "?"): \(failure)"))
            }
            payload = verifiedPayload
        } catch {
            return .failure(Rejection(description: "\(error)"))
        }
        let config: FleetConfig
        do {
            config = try FleetConfig(payload: payload)
        } catch {
            return .failure(Rejection(description: error.description))
        }
        configs.append(config)
        etags.append(etag)
        bodies.append(body)
        if let etag { byETag[etag] = configs.count - 1 }
        return .success(configs.count - 1)
    }
}

/// Verifies the grants of one answer of `POST /v1/mobile/grants` as the SDK must before rendering an offer
/// (contract §6): signature and `kid`, `typ`, audience, times with 60 s of leeway, and the subject.
enum GrantCheck {
    static func verify(
        _ tokens: [String], customer: String, workspace: String, keys: [String: P256PublicKey], now: Int64
    ) -> (held: [HeldGrant], rejected: Int) {
        var held: [HeldGrant] = []
        var rejected = 0
        for token in tokens {
            guard let claims = try? GrantVerifier.verify(token, keys: keys, audience: workspace, now: now),
                claims.subject == customer
            else {
                rejected += 1
                continue
            }
            held.append(
                HeldGrant(
                    campaignID: claims.campaignID, variantID: claims.variantID, placement: claims.placement,
                    treatment: claims.treatment, expiresAt: claims.expiresAt))
        }
        return (held, rejected)
    }
}
