import Foundation
import GronaReferenceSDK

/// The body of `POST /clients` (service protocol, "Creating a client"), checked member by member.
struct ClientSettings {
    var name: String?
    var options: SDKOptions
    /// The grants source's secret key (contract §6). Never logged, never echoed.
    var grantsSecretKey: String?

    init(_ body: JSON, mutation: Mutation?) throws(ServiceError) {
        let fields = try Fields(body)
        name = try fields.optionalString("name")
        let baseText = try fields.string("baseURL", maxBytes: 2048)
        guard let baseURL = URL(string: baseText), let scheme = baseURL.scheme?.lowercased(),
            scheme == "http" || scheme == "https", baseURL.host != nil
        else { throw .badRequest("baseURL must be an http or https URL") }
        let workspaceKey = try fields.string("workspaceKey")
        guard Identifiers.isWorkspaceKey(workspaceKey) else {
            throw .badRequest("workspaceKey must be [a-z0-9][a-z0-9-]{0,62} (contract §1)")
        }
        let configKeys = try Self.keys(fields, "configKeys")
        let grantKeys = try Self.keys(fields, "grantKeys")
        let bundled = try fields.optionalString("bundledConfiguration", maxBytes: 1 << 20).map { Array($0.utf8) }
        let installID = try fields.string("installID", maxBytes: 128)
        let customerID = try fields.optionalString("customerID", maxBytes: 128)
        grantsSecretKey = try fields.optionalString("grantsSecretKey", maxBytes: 256)
        let previewToken = try fields.optionalString("previewToken", maxBytes: 256)
        let eventFields = try fields.nested("events")
        let events = SDKOptions.Events(
            maxBatchSize: Int(try eventFields?.integer("maxBatchSize", in: 1...500, default: 20) ?? 20),
            maxAgeMs: try eventFields?.integer("maxAgeMs", in: 0...86_400_000, default: 10_000) ?? 10_000,
            gzip: try eventFields?.bool("gzip", default: true) ?? true,
            maxQueued: Int(try eventFields?.integer("maxQueued", in: 1...1_000_000, default: 1000) ?? 1000))
        let pollIntervalMs =
            try fields.nested("configuration")?.integer("pollIntervalMs", in: 1...86_400_000, default: 60_000)
            ?? 60_000
        guard let clock = try fields.nested("clock") else { throw .badRequest("clock is required ({\"startMs\"})") }
        // Up to the year 5138, as epoch milliseconds: far enough, and no time arithmetic can overflow.
        let startMs = try clock.integer("startMs", in: 0...99_999_999_999_999)
        let appFields = try fields.nested("app")
        let app = SDKOptions.App(
            id: try appFields?.optionalString("id") ?? "com.example.conformance",
            version: try appFields?.optionalString("version") ?? "1.0.0")
        options = SDKOptions(
            baseURL: baseURL, workspaceKey: workspaceKey, configKeys: configKeys, grantKeys: grantKeys,
            bundledConfiguration: bundled, installID: installID, customerID: customerID, previewToken: previewToken,
            events: events, pollIntervalMs: pollIntervalMs, app: app, startMs: startMs, mutation: mutation)
    }

    /// `{kid: base64 SPKI DER}` in the order written: the first is the current key (contract, SDK's side).
    private static func keys(_ fields: Fields, _ key: String) throws(ServiceError) -> KeyRing {
        guard let object = fields.object[key]?.objectValue else {
            throw .badRequest("\(key) is required: {\"<kid>\": \"<base64 SPKI DER>\", ...}")
        }
        var pairs: [(keyID: String, spki: String)] = []
        for member in object.members {
            guard let spki = member.value.stringValue else {
                throw .badRequest("\(key).\(member.key) must be a base64 SPKI DER string")
            }
            pairs.append((member.key, spki))
        }
        do {
            return try KeyRing(parsing: pairs)
        } catch {
            throw .badRequest("\(key): \(error)")
        }
    }
}
