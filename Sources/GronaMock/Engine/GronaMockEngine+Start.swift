import GronaMockJSON
import GronaMockPlatform

/// One engine, several ways to run it: `GronaMockServer` carries it on HTTP; a fuzzer or a harness may hold it
/// alone. Starting opens the storage, loads the keys and workspaces, starts the writer, the waiters, the live
/// viewers and the file watcher, and wires the event stream's listeners; `shutdown` and `stop` end it.
extension GronaMockEngine {
    package static func start(
        _ configuration: GronaMockConfiguration, logger: Logger
    ) throws(StartupError) -> GronaMockEngine {
        let clock = ServerClock()
        let storage: any GronaStorage
        do {
            storage = try configuration.storage.open()
        } catch {
            throw StartupError("cannot open the storage \(configuration.storage): \(error)")
        }
        // A backend that several instances share shares the run-time state too; any other runs alone.
        let shared: any SharedRuntime
        do {
            shared = try (storage as? any SharedRuntimeProvider)?.makeSharedRuntime(logger: logger) ?? LocalRuntime()
        } catch {
            throw StartupError("cannot share the run-time state through \(configuration.storage): \(error)")
        }
        let registry = WorkspaceRegistry(
            directory: configuration.workspacesDirectory, keys: loadKeys(configuration.keysDirectory, logger),
            revisions: storage, clock: clock, logger: logger, shared: shared, maxClones: configuration.maxClones)
        let events = EngineEvents()
        // Every workspace change goes on the event stream, from the first file loaded on: the kill log must know
        // a campaign killed in a file too.
        registry.onChange { events.publish(.workspaceChanged($0)) }
        let kills = ViolationsKillLog()
        let metrics = Metrics()
        let grants = GrantLog()
        let storeReference = WeakLate<EventStore>()
        let waiters = EventWaiters { storeReference.value }
        let feed = LiveFeed(capacity: configuration.live.feedCapacity, byteCapacity: configuration.live.feedBytes)
        // Alone only: another instance's deletes reach this one by no notification, so a page made ahead here
        // could outlive the events it names (and a balancer sends the next page anywhere).
        let pagesAhead = ViolationPagesAhead(
            capacity: shared is LocalRuntime ? ViolationPagesAhead.standardCapacity : 0)
        listen(
            on: events,
            Listeners(
                kills: kills, waiters: waiters, feed: feed, metrics: metrics, grants: grants, shared: shared,
                pagesAhead: pagesAhead))
        grants.onClear { workspace in
            shared.publish(grantsCleared: workspace)
            pagesAhead.invalidate(workspace: workspace)
        }
        registry.loadDirectory()
        let store = EventStore(
            storage: storage, maxEvents: configuration.maxEvents, logger: logger, metrics: metrics,
            publish: events.publish)
        storeReference.value = store
        let faults = FaultEngine(rules: shared.faultRules, logger: logger)
        faults.onFired { events.publish(.faultFired($0)) }
        let engine = GronaMockEngine(
            registry: registry, clock: clock, store: store, faults: faults, grants: grants, kills: kills,
            events: events, waiters: waiters, viewers: LiveViewers(feed: feed, options: configuration.live),
            metrics: metrics, shared: shared, pagesAhead: pagesAhead,
            watcher: WorkspaceWatcher(registry: registry, interval: configuration.reloadInterval))
        // A clone whose time to live has passed goes as a reset of its workspace would take it: its events, its
        // fault rules and its grants with it (in the change lane, on the file watcher's thread).
        registry.onChange { [runs = engine.runs] change in
            guard change.cause == .expired else { return }
            runs.clear(change.workspaceKey) { result in
                if case .failure(let error) = result {
                    logger.warning(
                        "the events of an expired clone were not deleted",
                        [("workspace", change.workspaceKey), ("error", "\(error)")])
                }
            }
        }
        // What other instances changed before this one started is applied before it serves.
        shared.start(
            RuntimeReplica(
                apply: { registry.applyShared($0) },
                adoptClock: { setting, version in
                    clock.adopt(setting, version: version)
                    let (now, offset, frozen) = clock.snapshot()
                    events.publish(.clockChanged(ClockState(now: now, offsetMilliseconds: offset, frozen: frozen)))
                },
                eventsStored: { waiters.committed($0) }, adoptGrants: { grants.adopt($0) },
                forgetGrants: { grants.forget(workspace: $0) }))
        return engine
    }

    /// Begins stopping: live streams end, a long scan is interrupted, long-polls answer with what there is.
    /// Returns at once.
    package func shutdown() {
        // A live stream has no end of its own: each ends now, with its last chunk.
        viewers.stop()
        // A violations scan over millions of events must not hold the exit past the shutdown deadline.
        store.interruptReads()
        // Nor the pages made ahead: their runs end at their next page (or sooner, their reads interrupted).
        pagesAhead.stopMaking()
        // Long-polls answer now, with what there is, rather than holding shutdown to its deadline.
        waiters.stop()
    }

    /// Stops what runs, once the requests in flight are answered: the sharing with other instances, the
    /// waiters, the writer (after committing its queue) and the file watcher.
    package func stop() {
        viewers.stop()
        shared.stop()
        waiters.stop()
        pagesAhead.stop()
        store.stop()
        watcher.stop()
    }

    /// The signing keys; a missing directory or a bad key is logged, not fatal, so the rest still serves.
    private static func loadKeys(_ directory: String, _ logger: Logger) -> KeyStore {
        do {
            let (keys, problems) = try KeyStore.load(from: directory)
            for problem in problems { logger.error("signing key not loaded", [("problem", problem)]) }
            return keys
        } catch {
            logger.warning("no signing keys loaded", [("reason", "\(error)")])
            return KeyStore(directory: directory, keys: [:])
        }
    }
}
