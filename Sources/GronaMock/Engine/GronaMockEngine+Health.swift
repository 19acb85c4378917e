import Dispatch
import GronaMockJSON
import GronaMockPlatform

/// What readiness reports, part by part (`GET /_mock/health`).
package struct HealthReport: Sendable {
    /// Whether events can be stored now: a one-row write committed through the event writer, answered in time.
    package let writable: Bool
    package let lastStorageError: String?
    package let servedWorkspaces: Int
    package let fileErrors: [(file: String, message: String)]
    package let openConnections: Int
    package let maxConnections: Int
}

/// More live viewers than the server allows.
package struct TooManyViewers: Error, Sendable, Equatable {
    package let limit: Int
}

/// One viewer of the live feed: the stream's state, and where its requests for the next piece wait (the
/// viewers' thread). The route makes its body stream of them.
package struct LiveWatch: Sendable {
    package let viewer: LiveViewer
    package let executor: @Sendable (@escaping @Sendable () -> Void) -> Void
}

extension GronaMockEngine {
    /// A storage probe that has not answered by then counts as a failure: a health check must not hang.
    static let probeTimeout: DispatchTimeInterval = .seconds(2)

    /// Readiness: `report` gets the parts once the storage probe answers, or after `probeTimeout`.
    package func readiness(_ report: @escaping @Sendable (HealthReport) -> Void) {
        called()
        let answered = Atomic<Bool>(false)
        let answer: @Sendable (Result<Void, ProbeFailure>) -> Void = { [self] probe in
            // The probe and the timeout race: the first to come answers.
            guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
            report(healthReport(probe))
        }
        store.probeStorage { result in answer(result.mapError { ProbeFailure(message: "\($0)") }) }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.probeTimeout) {
            answer(.failure(ProbeFailure(message: "the event writer did not answer within 2 s")))
        }
    }

    /// Liveness: the process serves requests. Nothing to ask of anything.
    package func liveness() -> String {
        called()
        return GronaMockVersion.current
    }

    /// Why the storage probe failed, as health shows it.
    private struct ProbeFailure: Error {
        let message: String
    }

    private func healthReport(_ probe: Result<Void, ProbeFailure>) -> HealthReport {
        let status = store.storageStatus
        var writable = true
        var lastError = status.lastError
        if case .failure(let failure) = probe {
            writable = false
            lastError = failure.message
        }
        return HealthReport(
            writable: writable, lastStorageError: lastError, servedWorkspaces: registry.servedCount,
            fileErrors: registry.loadErrors, openConnections: connections.open(), maxConnections: connections.max)
    }

    /// The Prometheus exposition: the server's counters and histograms, the gauges read now, the process's.
    package func metricsExposition() -> String {
        called()
        let server = metrics.render(gauges: [
            ("grona_open_connections", "Client connections open now.", Double(connections.open())),
            ("grona_event_waits", "Long-polls of /_mock/events/wait waiting now.", Double(waiters.pending)),
            (
                "grona_event_writer_queue_depth", "Jobs (requests' batches) waiting for the events writer now.",
                Double(store.writerQueueDepth)
            ),
            (
                "grona_database_bytes", "The database file and its write-ahead log, in bytes.",
                Double(store.databaseBytes())
            ),
            ("grona_clones", "Clones served now.", Double(registry.cloneCount)),
        ])
        return server + ProcessMetrics.exposition()
    }

    /// A viewer of the events as they are committed, matching `filter`, starting after event `after` (a
    /// reconnecting client's `Last-Event-ID`), else with the last `backlog` events. A cursor past the newest
    /// event (a server restarted since) starts at the newest.
    package func watchLive(_ filter: LiveFilter, after: Int?) throws -> LiveWatch {
        called()
        let feed = viewers.feed
        let cursor: Int
        if let after {
            cursor = min(after, feed.newestID)
        } else {
            let newest = feed.newestID
            cursor = max(feed.oldestID - 1, newest - min(viewers.options.backlog, newest))
        }
        guard let (id, progress) = viewers.join(cursor: cursor) else {
            throw TooManyViewers(limit: viewers.options.maxViewers)
        }
        let viewer = LiveViewer(id: id, progress: progress, filter: filter, viewers: viewers)
        return LiveWatch(viewer: viewer) { [viewers] work in viewers.park(id, work) }
    }
}
