import GronaMockPlatform

/// The engine's own subscribers to its event stream, each a listener (quick, on the publishing thread):
///
/// | listener | hears | does |
/// | --- | --- | --- |
/// | the kill log | workspace changes | dates each kill and revival (`ViolationsKillLog.record`) |
/// | the long-poll waiters | events stored, events deleted | wake their thread to count again |
/// | the live feed | events stored | appends the group for the dashboard's viewers |
/// | the grant log and the cluster | grants issued | records them for the checks; shares the new ones |
/// | the metrics | grants issued, configurations served, faults fired, workspace changes | counts them |
/// | the violations pages made ahead | workspace changes, events deleted, the clock, grants issued | drops them |
struct Listeners {
    let kills: ViolationsKillLog
    let waiters: EventWaiters
    let feed: LiveFeed
    let metrics: Metrics
    let grants: GrantLog
    let shared: any SharedRuntime
    let pagesAhead: ViolationPagesAhead
}

extension GronaMockEngine {
    /// Registers the engine's own listeners, before anything is published.
    static func listen(on events: EngineEvents, _ listeners: Listeners) {
        let (kills, waiters, feed, metrics, grants, shared) = (
            listeners.kills, listeners.waiters, listeners.feed, listeners.metrics, listeners.grants, listeners.shared
        )
        let pagesAhead = listeners.pagesAhead
        events.listen { event in
            switch event {
            case .workspaceChanged(let change):
                kills.record(change)
                metrics.add(.workspaceChanges)
            case .eventsStored(let stored):
                waiters.committed(stored.workspaces)
                feed.append(stored.batches.map { ($0.batch, $0.result) })
            case .eventsDeleted(let workspace):
                // Every workspace: the empty set.
                waiters.committed(workspace.map { [$0] } ?? [])
            case .grantsIssued(let issued):
                metrics.add(.grantsIssued, issued.grants.count)
                // A grant's first issue on this instance goes to the others (it must not wait for the database:
                // the grants endpoint answers on an event loop, and the cluster queues it).
                let new = grants.record(issued)
                if !new.isEmpty { shared.publish(grants: new) }
            case .configurationServed(let served):
                metrics.add(served.notModified ? .configsNotModified : .configsServed)
            case .faultFired:
                metrics.add(.faultsFired)
            case .clockChanged, .requestAnswered:
                break
            }
            // What the violations check reads besides the rows, now that the kill log and the grant log hold the
            // change: a page made ahead before it is dropped, and one being made is thrown away when it ends, so a
            // page started after this reads the new state (invalidating first left a window for one that read the
            // old state to be kept).
            switch event {
            case .workspaceChanged, .eventsDeleted, .grantsIssued: pagesAhead.invalidate(workspace: event.workspaceKey)
            case .clockChanged: pagesAhead.invalidate(workspace: nil)
            case .eventsStored, .configurationServed, .faultFired, .requestAnswered: break
            }
        }
    }
}
