/// A verified offer grant (contract §6): what the SDK keeps of a token after every check passed.
public struct Grant: Sendable, Equatable {
    public var jti: String
    public var subject: String
    /// Unix seconds.
    public var notBefore: Int64
    public var expires: Int64
    public var campaignID: String
    public var variantID: String
    public var placement: String?
    public var treatmentType: String
    public var treatmentValueMilli: Int64

    /// The contract's verifier leeway (contract §6): 60 s either side.
    public static let leewayMs: Int64 = 60_000

    /// Whether the grant is valid at `nowMs`, with the leeway: `nbf - 60 s <= now < exp + 60 s`.
    public func isValid(atMs nowMs: Int64) -> Bool {
        notBefore * 1000 - Self.leewayMs <= nowMs && nowMs < expires * 1000 + Self.leewayMs
    }

    /// Whether it grants this offer: its campaign, variant, treatment type and value (contract, SDK's side).
    public func matches(campaignID: String, variantID: String, treatment: (type: String, valueMilli: Int64)) -> Bool {
        self.campaignID == campaignID && self.variantID == variantID && treatmentType == treatment.type
            && treatmentValueMilli == treatment.valueMilli
    }
}

/// Checks grant tokens (contract §6): a compact JWS whose header pins `alg` `ES256`, `typ` `grona-grant+jwt`
/// and a `kid` among `grantKeys`, whose signature verifies, and whose claims name this workspace (`aud`) and
/// customer (`sub`) and are valid now (`nbf`, `exp`, 60 s leeway).
public struct GrantVerifier: Sendable {
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case malformed
        case signature(String)
        case audience(String)
        case subject(String)
        case notValidNow
        case claims(String)

        public var description: String {
            switch self {
            case .malformed: "not a compact JWS"
            case .signature(let reason): "the signature was refused: \(reason)"
            case .audience(let audience): "aud is \"\(audience)\", not this workspace"
            case .subject(let subject): "sub is \"\(subject)\", not this customer"
            case .notValidNow: "not valid now (nbf/exp, with 60 s leeway)"
            case .claims(let reason): "claims: \(reason)"
            }
        }
    }

    public let keys: KeyRing
    public let workspaceKey: String
    /// `skip-grant-verification`: only the claims are read; nothing about them or the signature is checked.
    public let checksNothing: Bool

    public init(keys: KeyRing, workspaceKey: String, mutation: Mutation?) {
        self.keys = keys
        self.workspaceKey = workspaceKey
        checksNothing = mutation == .skipGrantVerification
    }

    public func verify(_ token: String, customerID: String, nowMs: Int64) -> Result<Grant, Refusal> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let claimsBytes = Base64URL.decode(parts[1]),
            let claims = try? JSONParser.parse(claimsBytes), claims.objectValue != nil
        else { return .failure(.malformed) }
        if !checksNothing {
            let signature = JOSESignature(protectedText: parts[0], payloadText: parts[1], signatureText: parts[2])
            if case .failure(let refusal) = signature.check(type: "grona-grant+jwt", keys: keys) {
                return .failure(.signature("\(refusal)"))
            }
        }
        guard let subject = claims["sub"]?.stringValue, let jti = claims["jti"]?.stringValue,
            let notBefore = claims["nbf"]?.int64Value, let expires = claims["exp"]?.int64Value,
            let campaignID = claims["campaignID"]?.stringValue, let variantID = claims["variantID"]?.stringValue,
            let treatmentType = claims["treatment"]?["type"]?.stringValue,
            let valueMilli = claims["treatment"]?["valueMilli"]?.int64Value,
            (0...99_999_999_999).contains(notBefore), (0...99_999_999_999).contains(expires)
        else { return .failure(.claims("a required claim is missing or malformed")) }
        let grant = Grant(
            jti: jti, subject: subject, notBefore: notBefore, expires: expires, campaignID: campaignID,
            variantID: variantID, placement: claims["placement"]?.stringValue, treatmentType: treatmentType,
            treatmentValueMilli: valueMilli)
        if checksNothing { return .success(grant) }
        let audience = claims["aud"]?.stringValue ?? ""
        guard audience == workspaceKey else { return .failure(.audience(audience)) }
        guard subject == customerID else { return .failure(.subject(subject)) }
        guard grant.isValid(atMs: nowMs) else { return .failure(.notValidNow) }
        return .success(grant)
    }
}
