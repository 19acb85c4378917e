import GronaMockPlatform

/// When each campaign was killed and revived, for the `event_after_kill` rule: the registry serves only the
/// current configuration, so this log keeps the history, told of every workspace change as it is applied
/// (`WorkspaceRegistry.onChange`).
///
/// Every change is dated exactly: a kill or a revival is the change that served it (a kill request, a file
/// edit, a `PUT`, a rotation that re-signed, a reset, another instance's change), at the mock's clock when it
/// was applied and in the revision it served. A workspace that stops being served (a clone deleted, reset or
/// expired, a file removed) is forgotten, so a new clone under the same key starts with a history of its own.
final class ViolationsKillLog: Sendable {
    private let history = Mutex<[String: [String: [KillInterval]]]>([:])

    /// Records what `change` killed or revived. Linear in the changed workspace's campaigns only.
    func record(_ change: WorkspaceChange) {
        let key = change.workspaceKey
        guard let entry = change.served else {
            history.withLock { $0[key] = nil }
            return
        }
        let revision = entry.configuration.revision
        history.withLock { history in
            var kills = history[key] ?? [:]
            for campaign in entry.workspace.campaigns {
                var intervals = kills[campaign.id] ?? []
                let open = intervals.last.map { $0.revivedAt == nil } ?? false
                if campaign.status == .killed && !open {
                    intervals.append(KillInterval(killedAt: change.at, killedRevision: revision))
                } else if campaign.status == .live && open, let last = intervals.indices.last {
                    intervals[last].revivedAt = max(intervals[last].killedAt, change.at)
                    intervals[last].revivedRevision = max(intervals[last].killedRevision + 1, revision)
                }
                if !intervals.isEmpty { kills[campaign.id] = intervals }
            }
            history[key] = kills
        }
    }

    /// Per campaign id, oldest first.
    func intervals(for workspaceKey: String) -> [String: [KillInterval]] {
        history.withLock { $0[workspaceKey] ?? [:] }
    }
}
