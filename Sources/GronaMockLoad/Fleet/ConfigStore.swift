import GronaMock
import GronaMockJSON

/// The configurations the fleet has seen, verified once each against the workspace's JWKS (contract §4: every
/// signature must verify with the key its `kid` names), and shared by the installs that hold them. A body
/// byte-identical to one already verified verifies the same way, so it is not verified again; the `ETag` only
/// finds the candidate, since a service under test could reuse one for other bytes.
///
/// A service that signs afresh on every answer (ECDSA signatures differ each time) or stamps `issuedAt` with
/// the time of the request sends the same configuration in new bytes on every poll: a verified payload is
/// the same configuration as one held when they differ in `issuedAt` only. A configuration no install holds
/// gives its place to the next new one once there are `spareSlots`, so the store is bounded by what the
/// installs hold, however often the revision changes.
struct ConfigStore {
    let keys: [String: P256PublicKey]
    let workspace: String
    private(set) var configs: [FleetConfig] = []
    private(set) var etags: [String?] = []
    private var bodies: [[UInt8]] = []
    /// The payload without `issuedAt`, serialized.
    private var identities: [[UInt8]] = []
    /// Installs holding each configuration; the first, the fleet's bundled copy, is never replaced.
    private var holders: [Int] = []
    private var byETag: [String: Int] = [:]
    private var byIdentity: [[UInt8]: Int] = [:]

    /// Configurations kept although no install holds them, before one is replaced.
    static let spareSlots = 16

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
        guard let root = try? JSONParser().parse(payload), var object = root.objectValue else {
            return .failure(Rejection(description: "the payload is not a JSON object"))
        }
        _ = object.remove("issuedAt")
        let identity = JSONValue.object(object).serialized()
        if let known = byIdentity[identity] {
            remember(body, etag: etag, at: known)
            return .success(known)
        }
        let config: FleetConfig
        do {
            config = try FleetConfig(root: root)
        } catch {
            return .failure(Rejection(description: error.description))
        }
        let slot = reusableSlot() ?? configs.count
        if slot == configs.count {
            configs.append(config)
            etags.append(nil)
            bodies.append([])
            identities.append([])
            holders.append(0)
        } else {
            if let old = etags[slot], byETag[old] == slot { byETag[old] = nil }
            byIdentity[identities[slot]] = nil
            configs[slot] = config
            etags[slot] = nil
        }
        identities[slot] = identity
        byIdentity[identity] = slot
        remember(body, etag: etag, at: slot)
        return .success(slot)
    }

    /// An install now holds the configuration at `index`.
    mutating func hold(_ index: Int) {
        guard holders.indices.contains(index) else { return }
        holders[index] += 1
    }

    /// An install let the configuration at `index` go.
    mutating func release(_ index: Int) {
        guard holders.indices.contains(index), holders[index] > 0 else { return }
        holders[index] -= 1
    }

    /// The latest bytes and `ETag` of a configuration, so that the next poll sends that `ETag`.
    private mutating func remember(_ body: [UInt8], etag: String?, at index: Int) {
        bodies[index] = body
        guard let etag else { return }
        if let old = etags[index], byETag[old] == index { byETag[old] = nil }
        etags[index] = etag
        byETag[etag] = index
    }

    private func reusableSlot() -> Int? {
        guard configs.count > Self.spareSlots else { return nil }
        return holders.indices.dropFirst().first { holders[$0] == 0 }
    }
}

/// Verifies the grants of one answer of `POST /v1/mobile/grants` as the SDK must before rendering an offer
/// (contract §6): signature and `kid`, `typ`, audience, times with 60 s of leeway, and the subject.
///
/// At most `maximumTokens` of an answer are verified and held: each is an ECDSA verification on the run's one
/// thread, and an install keeps what it holds for the run, so an answer of thousands (a service under test
/// can send what it likes) would stall the schedule and grow every install. The rest count as rejected.
enum GrantCheck {
    static let maximumTokens = 32

    static func verify(
        _ tokens: [String], customer: String, workspace: String, keys: [String: P256PublicKey], now: Int64
    ) -> (held: [HeldGrant], rejected: Int) {
        var held: [HeldGrant] = []
        var rejected = max(0, tokens.count - maximumTokens)
        for token in tokens.prefix(maximumTokens) {
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
