import GronaMockJSON

/// What happened in the engine, as its subscribers hear of it (`EngineEvents`): the events stored, every
/// workspace change, the clock, the faults that fired, the grants issued and the configurations served. The kill
/// log, the live feed, the long-poll waiters, the cluster's grant sharing, the metrics and conformance scenarios
/// (which react to what an SDK sends, `requestAnswered`) all listen here instead of reaching into the routes.
///
/// Events about one workspace arrive in the order they happened: each kind is published from the one place that
/// orders it (commits from the writer thread, workspace changes from the registry's change lane, the clock under
/// its change), and every subscriber is handed them in publication order.
package enum EngineEvent: Sendable {
    /// A group of batches committed in one transaction, after their answers were sent.
    case eventsStored(StoredEvents)
    /// Stored events were deleted: one workspace's, or every workspace's (nil).
    case eventsDeleted(workspace: String?)
    /// What is served under a workspace key changed (a kill, a revival, a rotation, a put, a file reload, a
    /// clone, a reset, a removal, an expiry, another instance's change).
    case workspaceChanged(WorkspaceChange)
    /// The mock's clock was moved, frozen or reset, here or by another instance.
    case clockChanged(ClockState)
    /// A fault rule fired for a request.
    case faultFired(FaultFiring)
    /// The grants endpoint handed out grants.
    case grantsIssued(IssuedGrants)
    /// The configuration endpoint answered.
    case configurationServed(ServedConfiguration)
    /// A Grona endpoint answered a request (or dropped it), published as the answer leaves; only while a
    /// subscriber wants requests (`EngineEvents.requestsWanted`).
    case requestAnswered(AnsweredRequest)

    /// The workspace the event is about; nil for one about none or several (the clock, a commit of several
    /// workspaces' batches, a global delete).
    package var workspaceKey: String? {
        switch self {
        case .eventsStored(let stored):
            let keys = Set(stored.batches.map(\.batch.workspaceKey))
            return keys.count == 1 ? keys.first : nil
        case .eventsDeleted(let workspace): return workspace
        case .workspaceChanged(let change): return change.workspaceKey
        case .clockChanged: return nil
        case .faultFired(let firing): return firing.workspace
        case .grantsIssued(let grants): return grants.workspace
        case .configurationServed(let served): return served.workspace
        case .requestAnswered(let request): return request.workspace
        }
    }
}

/// Batches committed together, each with what storing it did (its duplicates).
package struct StoredEvents: Sendable {
    package struct Batch: Sendable {
        package let batch: EventBatch
        package let result: EventBatchResult
    }

    package let batches: [Batch]

    /// The workspaces whose events these are.
    package var workspaces: Set<String> { Set(batches.map(\.batch.workspaceKey)) }
}

/// The mock's clock as the control API shows it.
package struct ClockState: Sendable, Equatable {
    /// Unix epoch milliseconds, as the mock reads the time now.
    package let now: Int64
    package let offsetMilliseconds: Int64
    package let frozen: Bool
}

/// One fault rule firing for one request.
package struct FaultFiring: Sendable, Equatable {
    package let endpoint: FaultEngine.Endpoint
    /// The request's workspace when the rule that fired belongs to one; nil for a rule of every workspace (it
    /// fires before the endpoint knows the workspace).
    package let workspace: String?
    package let action: FaultAction
}

/// Grants handed out in one answer of the grants endpoint.
package struct IssuedGrants: Sendable {
    package let workspace: String
    package let customerID: String
    /// The campaign and variant of each grant, in the answer's order.
    package let grants: [(campaignID: String, variantID: String)]
}

/// One answer of the configuration endpoint.
package struct ServedConfiguration: Sendable, Equatable {
    package enum Encoding: String, Sendable {
        case identity, gzip
    }

    package let workspace: String
    package let revision: Int64
    /// The strong ETag of the body sent (each encoding has its own), quoted.
    package let etag: String
    package let encoding: Encoding
    /// A 304: the client's `If-None-Match` matched.
    package let notModified: Bool
    /// A configuration fault replaced the signed document (a bad signature, an unknown kid).
    package let tampered: Bool
}
