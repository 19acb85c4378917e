import Foundation
import GronaMock

/// What an SDK is configured with for one workspace (`GET /_mock/workspaces/{key}/sdk-options`), typed: the
/// endpoint URLs and the key pins it checks signatures with (contract §2: kid → base64 SubjectPublicKeyInfo).
public struct GronaMockSDKOptions: Sendable, Hashable {
    /// One pinned key: its `kid` and its base64 DER SubjectPublicKeyInfo.
    public struct PinnedKey: Sendable, Hashable {
        public let kid: String
        public let spki: String
    }

    public let workspaceKey: String
    public let configurationURL: URL
    public let eventsURL: URL
    public let grantsURL: URL
    public let jwksURL: URL
    /// The configuration's signing keys, in the workspace's order (the first signs first).
    public let configKeys: [PinnedKey]
    /// The grants' signing keys, in the workspace's order.
    public let grantKeys: [PinnedKey]

    /// `configKeys` as the kid → SPKI map an SDK pins.
    public var configPins: [String: String] { Dictionary(configKeys.map { ($0.kid, $0.spki) }) { first, _ in first } }
    /// `grantKeys` as the kid → SPKI map an order backend pins.
    public var grantPins: [String: String] { Dictionary(grantKeys.map { ($0.kid, $0.spki) }) { first, _ in first } }
}

/// Which arm a unit (an install id or a customer id) is in for a campaign, by the contract's assignment (§5),
/// computed by the engine's own code: the arm and variant a correct SDK puts in its events.
public struct GronaMockAssignment: Sendable, Hashable {
    /// `"treatment"`, `"control"` or `"holdout"`, as events carry it.
    public let arm: String
    /// The variant the unit sees; nil in the holdout (nothing is shown), or when the weights do not reach the
    /// unit's bucket (a workspace served deliberately invalid).
    public let variantID: String?
    /// Whether the campaign's unit is the install id (`"install"`) or the customer id (`"customer"`).
    public let unit: String
}

extension GronaMockWorkspace {
    /// The options an SDK needs for this workspace, with URLs on the mock's base URL.
    public func sdkOptions() async throws -> GronaMockSDKOptions {
        let base =
            server.baseURL.absoluteString.hasSuffix("/")
            ? String(server.baseURL.absoluteString.dropLast()) : server.baseURL.absoluteString
        let options = try server.operate("read the sdk-options of \(key)") { try $0.sdkOptions(key, baseURL: base) }
        func url(_ text: String) throws -> URL {
            guard let url = URL(string: text) else { throw GronaMockTestError("sdk-options: not a URL: \(text)") }
            return url
        }
        return GronaMockSDKOptions(
            workspaceKey: options.workspaceKey, configurationURL: try url(options.configURL),
            eventsURL: try url(options.eventsURL), grantsURL: try url(options.grantsURL),
            jwksURL: try url(options.jwksURL),
            configKeys: options.configKeys.map { .init(kid: $0.kid, spki: $0.spki) },
            grantKeys: options.grantKeys.map { .init(kid: $0.kid, spki: $0.spki) })
    }

    /// The arm and variant `unit` gets in `campaign` (contract §5: holdout first, then the variant whose running
    /// weight sum exceeds the unit's bucket), on the workspace as served now. Throws for an unknown campaign.
    public func expectedAssignment(campaign: String, unit: String) async throws -> GronaMockAssignment {
        try GronaMockTestError.checked(campaign, .campaignID, given: "campaign")
        return try server.operate("assign \(unit) in \(campaign) of \(key)") { engine in
            guard let workspace = engine.registry.entry(for: key)?.workspace else {
                throw WorkspaceRegistry.ChangeError.unknownWorkspace(key)
            }
            guard let found = workspace.campaigns.first(where: { $0.id == campaign }) else {
                throw WorkspaceRegistry.ChangeError.unknownCampaign(campaign)
            }
            if Assignment.isHeldOut(unit, by: workspace.holdout) {
                return GronaMockAssignment(arm: "holdout", variantID: nil, unit: found.assignmentUnit.rawValue)
            }
            let variant = Assignment.variant(of: found, for: unit)
            return GronaMockAssignment(
                arm: variant?.isControl == true ? "control" : "treatment", variantID: variant?.id,
                unit: found.assignmentUnit.rawValue)
        }
    }

    /// The secret key the grants endpoint takes for this workspace: the clone's, or the first of the file's.
    func grantsSecretKey() throws -> String {
        if let secretKey { return secretKey }
        let secret = try server.operate("read the secret key of \(key)") {
            $0.registry.entry(for: key)?.workspace.secretKeys.first
        }
        guard let secret else { throw GronaMockTestError("\(key) has no secret key for the grants endpoint") }
        return secret
    }
}

/// The ETag of each encoding of the served configuration. The gzip variant is a different representation
/// with its own ETag (RFC 9110 §8.8.3), and URLSession asks for gzip by itself (and decompresses), so the
/// ETag a URLSession SDK holds and sends back in `If-None-Match` is `gzip`, not `identity`.
public struct GronaMockConfigurationETags: Sendable, Hashable {
    /// The ETag of the uncompressed document (a request without `Accept-Encoding: gzip`).
    public let identity: String?
    /// The ETag of the gzip variant (a request with `Accept-Encoding: gzip`, as URLSession sends).
    public let gzip: String?
}

extension GronaMockWorkspace {
    /// The ETag of each encoding of the configuration served now.
    public func configurationETags() async throws -> GronaMockConfigurationETags {
        let target = "/v1/mobile/workspaces/\(key)/config"
        let identity = try await server.raw("GET", target)
        let gzip = try await server.raw("GET", target, headers: [("Accept-Encoding", "gzip")])
        for response in [identity, gzip] where response.status.code != 200 {
            throw GronaMockTestError(response: response, request: "GET the configuration of \(key)")
        }
        return GronaMockConfigurationETags(identity: identity.headers["ETag"], gzip: gzip.headers["ETag"])
    }
}
