import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON

/// A signed configuration as an SDK would check it: fetched from the endpoint, every signature verified with
/// the workspace's JWKS (contract §4), the payload decoded.
public struct GronaMockVerifiedConfiguration: Sendable {
    public let revision: Int64
    /// The ETag of the uncompressed document; a URLSession SDK, which asks for gzip, holds another one
    /// (`GronaMockWorkspace.configurationETags().gzip`).
    public let etag: String?
    /// The payload's JSON, as signed.
    public let payload: Data
    /// The `kid` of each signature that verified.
    public let verifiedKeyIDs: [String]
    /// The `kid` (or nil) of each signature that did not, with the reason.
    public let failedSignatures: [(kid: String?, reason: String)]

    /// Whether an SDK holding every key of the JWKS would accept it: at least one signature verifies.
    public var isValid: Bool { !verifiedKeyIDs.isEmpty }
}

/// A grant decoded and verified against the JWKS as an order backend would (contract §6).
public struct GronaMockGrant: Sendable, Hashable {
    /// The compact JWS as served.
    public let token: String
    public let grantID: String
    public let customerID: String
    public let campaignID: String
    public let variantID: String
    public let placement: String
    public let treatmentType: String
    public let treatmentValueMilli: Int64
    public let notBefore: Date
    public let expiresAt: Date
}

extension GronaMockWorkspace {
    /// The JWKS's keys, by `kid`.
    private func jwks() async throws -> [String: P256PublicKey] {
        let response = try await server.raw("GET", "/v1/mobile/workspaces/\(key)/jwks.json")
        guard response.status.code == 200 else {
            throw GronaMockTestError(response: response, request: "GET jwks.json of \(key)")
        }
        return try JWK.publicKeys(fromSet: response.body)
    }

    /// Fetches the served configuration and checks its signatures with the JWKS, as an SDK would.
    public func verifiedConfiguration() async throws -> GronaMockVerifiedConfiguration {
        let response = try await server.raw("GET", "/v1/mobile/workspaces/\(key)/config")
        guard response.status.code == 200 else {
            throw GronaMockTestError(response: response, request: "GET the configuration of \(key)")
        }
        let (payload, checks) = try JWSVerifier.verifyGeneral(
            response.body, keys: try await jwks(), type: .configuration)
        let revision = (try? JSONParser().parse(payload))?["revision"]?.int64Value ?? 0
        return GronaMockVerifiedConfiguration(
            revision: revision, etag: response.headers["ETag"], payload: Data(payload),
            verifiedKeyIDs: checks.filter(\.isValid).compactMap(\.kid),
            failedSignatures: checks.compactMap { check in
                if case .failure(let failure) = check.result { return (check.kid, "\(failure)") }
                return nil
            })
    }

    /// Asks the grants endpoint for `customerID`'s grants with this workspace's secret key (a clone's, or the
    /// first in a workspace file's `secretKeys`), and verifies
    /// each against the JWKS (signature, `aud`, validity window on the mock's clock). Throws on a grant that
    /// does not verify, naming why: use it to check what an order backend would accept.
    public func grants(for customerID: String) async throws -> [GronaMockGrant] {
        let secretKey = try grantsSecretKey()
        let body = JSONValue.object(["customerID": .string(customerID)]).serialized()
        let response = try await server.raw(
            "POST", "/v1/mobile/grants", body: body, headers: [("Authorization", "Bearer \(secretKey)")])
        guard response.status.code == 200 else {
            throw GronaMockTestError(response: response, request: "POST /v1/mobile/grants for \(customerID)")
        }
        let answer = try JSONParser().parse(response.body)
        let now = answer["serverTime"]?.int64Value ?? 0
        let keys = try await jwks()
        return try (answer["grants"]?.arrayValue ?? []).compactMap(\.stringValue).map { token in
            do {
                let claims = try GrantVerifier.verify(token, keys: keys, audience: key, now: now)
                return GronaMockGrant(
                    token: token, grantID: claims.grantID, customerID: claims.subject, campaignID: claims.campaignID,
                    variantID: claims.variantID, placement: claims.placement,
                    treatmentType: claims.treatment.type.rawValue,
                    treatmentValueMilli: claims.treatment.valueMilli,
                    notBefore: Date(timeIntervalSince1970: Double(claims.notBefore)),
                    expiresAt: Date(timeIntervalSince1970: Double(claims.expiresAt)))
            } catch {
                throw GronaMockTestError("a grant for \(customerID) does not verify: \(error)")
            }
        }
    }
}
