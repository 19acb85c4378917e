import GronaMockHTTP
import GronaMockJSON

/// When each campaign was killed and revived, for the `event_after_kill` rule: the registry serves only the
/// current configuration, so this log watches it change.
///
/// Each observation compares a workspace's campaigns with the previous observation. A change is dated
/// leniently, never earlier than it could have happened for a kill and never later for a revival, so a
/// correct SDK is not reported: a kill at the earlier of now and the end of the second of the current
/// revision's `issuedAt`, in the current revision; a revival at the previous observation, in the revision
/// after the one seen then. Observing right before and after each run-time change (see `observing`) makes
/// both bounds tight.
final class ViolationsKillLog: Sendable {
    private struct Observed {
        var revision: Int64
        var at: Int64
        var kills: [String: [KillInterval]] = [:]
    }

    private let state = Mutex<[String: Observed]>([:])

    /// Records the kills and revivals of `entry` since its last observation, `now` being the server's time.
    func observe(_ entry: WorkspaceRegistry.Entry, now: Int64) {
        let revision = entry.configuration.revision
        let issuedAt = entry.configuration.issuedAt
        state.withLock { state in
            let previous = state[entry.workspace.key]
            var observed = previous ?? Observed(revision: revision, at: now)
            for campaign in entry.workspace.campaigns {
                var intervals = observed.kills[campaign.id] ?? []
                let open = intervals.last.map { $0.revivedAt == nil } ?? false
                if campaign.status == .killed && !open {
                    let killedAt = min(now, MockTime.milliseconds(fromSeconds: issuedAt) + 999)
                    intervals.append(KillInterval(killedAt: killedAt, killedRevision: revision))
                } else if campaign.status == .live && open, let last = intervals.indices.last {
                    let killedAt = intervals[last].killedAt
                    intervals[last].revivedAt = max(killedAt, previous?.at ?? now)
                    intervals[last].revivedRevision = max(
                        intervals[last].killedRevision + 1, (previous?.revision ?? revision) + 1)
                }
                if !intervals.isEmpty { observed.kills[campaign.id] = intervals }
            }
            observed.revision = revision
            observed.at = now
            state[entry.workspace.key] = observed
        }
    }

    /// Per campaign id, oldest first.
    func intervals(for workspaceKey: String) -> [String: [KillInterval]] {
        state.withLock { $0[workspaceKey]?.kills ?? [:] }
    }

    /// Observes every served workspace, and forgets the ones no longer served (a deleted clone's key may
    /// come back as a new clone with a history of its own).
    func observeAll(_ registry: WorkspaceRegistry, now: Int64) {
        let keys = registry.workspaceKeys
        for key in keys {
            if let entry = registry.entry(for: key) { observe(entry, now: now) }
        }
        let served = Set(keys)
        state.withLock { state in state = state.filter { served.contains($0.key) } }
    }

    /// Wraps a handler that changes workspaces: every workspace is observed just before it runs and again
    /// when it answers, so a kill or revival through it is dated to within the request.
    func observing(_ handler: @escaping HTTPHandler, registry: WorkspaceRegistry, clock: ServerClock) -> HTTPHandler {
        { [self] request, responder in
            observeAll(registry, now: clock.nowMilliseconds())
            let observer = HTTPResponder { response in
                self.observeAll(registry, now: clock.nowMilliseconds())
                responder.send(response)
            }
            handler(request, observer)
            if let response = observer.finishDispatch() {
                observeAll(registry, now: clock.nowMilliseconds())
                responder.send(response)
            }
        }
    }
}
