import GronaMockJSON
import GronaMockPlatform

/// A served workspace as the control API shows it.
package struct WorkspaceSummary: Sendable {
    /// A clone's time to live: `expiresAt` by the real clock (Unix epoch milliseconds), which the expiry
    /// follows, not the mock's.
    package struct Expiry: Sendable, Equatable {
        package let ttlSeconds: Int
        package let expiresInMilliseconds: Int64
        package let expiresAt: Int64
    }

    package let workspaceKey: String
    package let revision: Int64
    package let origin: WorkspaceRegistry.Origin
    package let configKeys: [String]
    package let grantKeys: [String]
    package let problems: [ValidationProblem]
    package let expiry: Expiry?
    /// The source document with its secret keys masked (for one workspace's detail only): a secret is shown
    /// once, when a clone is made, and never again.
    package let document: JSONValue?
}

/// Every served workspace, and the files whose last load failed with their first error.
package struct WorkspaceList: Sendable {
    package let workspaces: [WorkspaceSummary]
    package let fileErrors: [(file: String, message: String)]
}

/// A clone just made, with its secret key (shown this once).
package struct ClonedWorkspace: Sendable {
    package let summary: WorkspaceSummary
    package let secretKey: String
}

/// What a reset took away: everything (`workspace` nil), or one test run's workspace.
package struct ResetOutcome: Sendable {
    package let workspace: String?
    /// For one workspace: the revision served under its key now (its file's), nil when nothing is (a clone).
    package let servedRevision: Int64?
    package let events: Int
    package let faults: Int
}

/// The URLs and key maps an SDK's options take (`GronaOptions`), for one workspace.
package struct SDKOptions: Sendable {
    package let workspaceKey: String
    package let configURL: String
    package let eventsURL: String
    package let grantsURL: String
    package let jwksURL: String
    /// Key id to base64 SubjectPublicKeyInfo DER (contract §2), in the workspace's order.
    package let configKeys: [(kid: String, spki: String)]
    package let grantKeys: [(kid: String, spki: String)]
}

extension GronaMockEngine {
    package func workspaceList() -> WorkspaceList {
        called()
        let summaries = registry.workspaceKeys.compactMap { key in registry.entry(for: key).map { summary($0) } }
        return WorkspaceList(workspaces: summaries, fileErrors: registry.loadErrors)
    }

    package func workspace(_ key: String) throws -> WorkspaceSummary {
        called()
        try IdentifierKind.workspaceKey.validated(key, given: "the path")
        guard let entry = registry.entry(for: key) else { throw WorkspaceRegistry.ChangeError.unknownWorkspace(key) }
        return summary(entry, withDocument: true)
    }

    /// Serves `document` as workspace `key` (`allowInvalid`: with content errors too).
    package func putWorkspace(_ key: String, document: JSONValue, allowInvalid: Bool) throws -> WorkspaceSummary {
        called()
        return summary(try registry.put(key, document: document, allowInvalid: allowInvalid))
    }

    /// Kills (`.killed`) or revives (`.live`) one campaign.
    package func setCampaignStatus(
        _ status: Campaign.Status, campaign: String, workspace: String
    ) throws -> WorkspaceSummary {
        called()
        return summary(try registry.setStatus(status, campaign: campaign, in: workspace))
    }

    package func rotateKeys(_ role: WorkspaceRegistry.KeyRole, workspace: String) throws -> WorkspaceSummary {
        called()
        return summary(try registry.rotate(role, in: workspace))
    }

    /// Clones `key` as `newKey` (see `WorkspaceRegistry.clone`).
    package func cloneWorkspace(
        _ key: String, as newKey: String, secretKey: String?, ttlSeconds: Int?
    ) throws -> ClonedWorkspace {
        called()
        let (entry, secret) = try registry.clone(key, as: newKey, secretKey: secretKey, ttlSeconds: ttlSeconds)
        return ClonedWorkspace(summary: summary(entry), secretKey: secret)
    }

    /// Removes a clone with its grants and events; `completion` gets how many events went, once they are
    /// deleted.
    package func deleteClone(_ key: String, completion: @escaping @Sendable (Result<Int, StorageError>) -> Void) throws
    {
        called()
        try registry.removeClone(key)
        grants.clear(workspace: key)
        guard let writer = store.writer else { return completion(.success(0)) }
        writer.submit(.delete(workspaceKey: key, completion))
    }

    /// The options an SDK needs for workspace `key`, with URLs on `baseURL` (how the client reached the server).
    package func sdkOptions(_ key: String, baseURL: String) throws -> SDKOptions {
        called()
        try IdentifierKind.workspaceKey.validated(key, given: "the path")
        guard let workspace = registry.entry(for: key)?.workspace else {
            throw WorkspaceRegistry.ChangeError.unknownWorkspace(key)
        }
        let keys = registry.keys
        func map(_ kids: [String]) -> [(kid: String, spki: String)] {
            kids.compactMap { kid in keys[kid].map { (kid, $0.publicKey.spkiBase64) } }
        }
        return SDKOptions(
            workspaceKey: key, configURL: "\(baseURL)/v1/mobile/workspaces/\(key)/config",
            eventsURL: "\(baseURL)/v1/mobile/events", grantsURL: "\(baseURL)/v1/mobile/grants",
            jwksURL: "\(baseURL)/v1/mobile/workspaces/\(key)/jwks.json", configKeys: map(workspace.configKeyIDs),
            grantKeys: map(workspace.grantKeyIDs))
    }

    /// `POST /_mock/reset`: with `workspace`, what one test run left on a shared server (that workspace's
    /// events and rejected events, its fault rules, its run-time changes, its grants); without, everything,
    /// the clock included. `completion` runs once the events are deleted. Throws before anything is cleared
    /// when the workspace is unknown.
    package func reset(
        workspace: String?, completion: @escaping @Sendable (Result<ResetOutcome, StorageError>) -> Void
    ) throws {
        called()
        if let key = workspace {
            let served = try registry.reset(key)
            runs.clear(key) { result in
                completion(
                    result.map {
                        ResetOutcome(
                            workspace: key, servedRevision: served?.configuration.revision, events: $0.events,
                            faults: $0.faults)
                    })
            }
            return
        }
        let faultCount = try faults.clear()
        clock.reset()
        // The other instances on the same database, if any, take the clock and the workspaces too.
        clock.published(version: try shared.publish(clock: clock.setting))
        events.publish(.clockChanged(clockSnapshot()))
        grants.clear()
        registry.reset()
        guard let writer = store.writer else {
            return completion(
                .success(ResetOutcome(workspace: nil, servedRevision: nil, events: 0, faults: faultCount)))
        }
        writer.submit(
            .delete(workspaceKey: nil) { result in
                completion(
                    result.map { ResetOutcome(workspace: nil, servedRevision: nil, events: $0, faults: faultCount) })
            })
    }

    /// The summary of a served entry (with its redacted document when asked).
    func summary(_ entry: WorkspaceRegistry.Entry, withDocument: Bool = false) -> WorkspaceSummary {
        let key = entry.workspace.key
        let expiry = registry.expiry(of: key).map { expiry in
            let remaining = Int64(expiry.remaining(at: MonotonicClock.now()) / 1_000_000)
            return WorkspaceSummary.Expiry(
                ttlSeconds: expiry.ttlSeconds, expiresInMilliseconds: remaining,
                expiresAt: ServerClock.wallMilliseconds() + remaining)
        }
        return WorkspaceSummary(
            workspaceKey: key, revision: entry.configuration.revision, origin: entry.origin,
            configKeys: entry.workspace.configKeyIDs, grantKeys: entry.workspace.grantKeyIDs,
            problems: entry.problems, expiry: expiry, document: withDocument ? Self.redactingSecrets(entry.source) : nil
        )
    }

    private static func redactingSecrets(_ source: JSONValue) -> JSONValue {
        guard var root = source.objectValue, let secrets = root["secretKeys"]?.arrayValue else { return source }
        root.set("secretKeys", .array(secrets.map { _ in .string("[redacted]") }))
        return .object(root)
    }
}
