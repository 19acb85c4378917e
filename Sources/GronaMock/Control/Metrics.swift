import GronaMockHTTP
import GronaMockPlatform

/// Counters and histograms for `GET /_mock/metrics`, in the Prometheus text format (version 0.0.4).
///
/// One lock over plain dictionaries: updates are a few per request, far from contended enough to need more.
package final class Metrics: Sendable {
    /// Upper bounds, in seconds, of the request latency buckets.
    static let latencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// The counters the engine's event stream feeds (`EngineListeners`), each named once.
    package enum Counter: String, CaseIterable, Sendable {
        case grantsIssued = "grona_grants_issued_total"
        case configsServed = "grona_configs_served_total"
        case configsNotModified = "grona_configs_not_modified_total"
        case faultsFired = "grona_faults_fired_total"
        case workspaceChanges = "grona_workspace_changes_total"

        var help: String {
            switch self {
            case .grantsIssued: "Grants handed out by the grants endpoint."
            case .configsServed: "Configuration documents served with a body."
            case .configsNotModified: "Configuration requests answered 304."
            case .faultsFired: "Fault rules that fired for a request."
            case .workspaceChanges:
                "Changes to what a workspace key serves (edits, kills, clones, resets, expiries...)."
            }
        }
    }

    private struct State {
        /// By route pattern: one lookup of the route per request, where a key of route, method and status and
        /// a histogram by route hashed the route twice on every answer.
        var routes: [String: RouteMetrics] = [:]
        var counters: [Counter: Int] = [:]
        var events = EventMetrics()
    }

    /// One route's answers, counted by method and status, and their latencies.
    private struct RouteMetrics {
        var answers: [Answer: Int] = [:]
        var latency = MetricsHistogram(bounds: Metrics.latencyBuckets)

        mutating func record(_ answer: Answer, _ seconds: Double) {
            answers[answer, default: 0] += 1
            latency.observe(seconds)
        }
    }

    private struct Answer: Hashable {
        var method: String
        var status: Int
    }

    private let state = Mutex(State())

    package init() {}

    func recordRequest(route: String, method: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.routes[route, default: RouteMetrics()].record(Answer(method: method, status: status), seconds)
        }
    }

    func add(_ counter: Counter, _ amount: Int = 1) {
        guard amount != 0 else { return }
        state.withLock { $0.counters[counter, default: 0] += amount }
    }

    /// One transaction of the events writer and what became of each batch in it: one lock for the group.
    func recordCommit(_ commit: EventMetrics.Commit, batches: [(EventBatch, EventBatchResult)]) {
        state.withLock { $0.events.record(commit, batches: batches) }
    }

    /// The exposition: HELP and TYPE lines, then samples, with the gauges the caller reads at scrape time.
    func render(gauges: [(name: String, help: String, value: Double)]) -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        func header(_ name: String, _ type: String, _ help: String) { MetricsText.header(name, type, help, &out) }
        header(
            "grona_http_requests_total", "counter",
            "HTTP requests answered, by route, method and status; 499: the client went before its answer.")
        let routes = snapshot.routes.sorted { $0.key < $1.key }
        for (route, metrics) in routes {
            for (answer, count) in metrics.answers.sorted(by: {
                ($0.key.method, $0.key.status) < ($1.key.method, $1.key.status)
            }) {
                out += "grona_http_requests_total{route=\(MetricsText.label(route)),"
                out += "method=\(MetricsText.label(answer.method)),status=\"\(answer.status)\"} \(count)\n"
            }
        }
        header(
            "grona_http_request_duration_seconds", "histogram", "Time from a request's body to its answer, by route.")
        for (route, metrics) in routes {
            metrics.latency.render("grona_http_request_duration_seconds", "route=\(MetricsText.label(route)),", &out)
        }
        let events: [(String, String, Int)] = [
            ("grona_events_accepted_total", "Events stored.", snapshot.events.total(.accepted)),
            (
                "grona_events_duplicate_total", "Events whose eventID was already stored for the workspace.",
                snapshot.events.total(.duplicate)
            ),
            (
                "grona_events_rejected_total", "Events rejected with a field and a reason.",
                snapshot.events.total(.rejected)
            ),
        ]
        let counters = Counter.allCases.map { ($0.rawValue, $0.help, snapshot.counters[$0] ?? 0) }
        for (name, help, value) in events + counters {
            header(name, "counter", help)
            out += "\(name) \(value)\n"
        }
        snapshot.events.render(into: &out)
        for gauge in gauges {
            header(gauge.name, "gauge", gauge.help)
            out += "\(gauge.name) \(MetricsText.number(gauge.value))\n"
        }
        return out
    }

    /// Counts and times one answer; the HTTP server calls this as each answer is queued.
    func record(_ answered: HTTPServer.Answered) {
        recordRequest(
            route: answered.route, method: answered.method.description, status: answered.status,
            seconds: answered.seconds)
    }
}
