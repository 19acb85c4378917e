import GronaMockHTTP

/// `GET /_mock/metrics`: Prometheus text format, for load tests and dashboards.
enum MetricsRoutes {
    static func register(on router: inout Router, engine: GronaMockEngine) {
        router.on(.get, "/_mock/metrics") { _ in
            HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(engine.metricsExposition().utf8))
        }
    }
}
