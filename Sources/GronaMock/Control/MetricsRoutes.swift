import GronaMockHTTP

/// `GET /_mock/metrics`: Prometheus text format, for load tests and dashboards.
enum MetricsRoutes {
    static func register(
        on router: inout Router, metrics: Metrics, events: EventStore, waits: @escaping @Sendable () -> Int,
        openConnections: @escaping @Sendable () -> Int
    ) {
        router.on(.get, "/_mock/metrics") { _ in
            let server = metrics.render(gauges: [
                ("grona_open_connections", "Client connections open now.", Double(openConnections())),
                ("grona_event_waits", "Long-polls of /_mock/events/wait waiting now.", Double(waits())),
                (
                    "grona_event_writer_queue_depth", "Jobs (requests' batches) waiting for the events writer now.",
                    Double(events.writerQueueDepth)
                ),
                (
                    "grona_database_bytes", "The database file and its write-ahead log, in bytes.",
                    Double(events.databaseBytes())
                ),
            ])
            let text = server + ProcessMetrics.exposition()
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(text.utf8))
        }
    }
}
