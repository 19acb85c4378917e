import GronaMockHTTP
import GronaMockJSON

/// Counters and histograms for `GET /_mock/metrics`, in the Prometheus text format (version 0.0.4).
///
/// One lock over plain dictionaries: updates are a few per request, far from contended enough to need more.
package final class Metrics: Sendable {
    /// Upper bounds, in seconds, of the request latency buckets.
    static let latencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    /// Upper bounds of the events-per-commit buckets.
    static let batchBuckets: [Double] = [1, 10, 50, 100, 500, 1000, 5000, 10000, 50000]

    private struct Histogram {
        var counts: [Int]
        var sum = 0.0
        var total = 0

        init(buckets: Int) { counts = Array(repeating: 0, count: buckets) }

        mutating func observe(_ value: Double, bounds: [Double]) {
            for (index, bound) in bounds.enumerated() where value <= bound { counts[index] += 1 }
            sum += value
            total += 1
        }
    }

    private struct State {
        var requests: [RequestKey: Int] = [:]
        var latency: [String: Histogram] = [:]
        var counters: [String: Int] = [:]
        var commitSizes = Histogram(buckets: Metrics.batchBuckets.count)
    }

    private struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private let state = Mutex(State())

    package init() {}

    func recordRequest(route: String, method: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[RequestKey(route: route, method: method, status: status), default: 0] += 1
            state.latency[route, default: Histogram(buckets: Self.latencyBuckets.count)]
                .observe(seconds, bounds: Self.latencyBuckets)
        }
    }

    func add(_ counter: String, _ amount: Int = 1) {
        guard amount != 0 else { return }
        state.withLock { $0.counters[counter, default: 0] += amount }
    }

    func recordCommit(events: Int) {
        state.withLock { $0.commitSizes.observe(Double(events), bounds: Self.batchBuckets) }
    }

    /// The exposition: HELP and TYPE lines, then samples, with the gauges the caller reads at scrape time.
    func render(gauges: [(name: String, help: String, value: Double)]) -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        func header(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        header("grona_http_requests_total", "counter", "HTTP requests answered, by route, method and status.")
        for (key, count) in snapshot.requests.sorted(by: {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }) {
            out +=
                "grona_http_requests_total{route=\(label(key.route)),method=\(label(key.method)),status=\"\(key.status)\"} \(count)\n"
        }
        header(
            "grona_http_request_duration_seconds", "histogram", "Time from a request's body to its answer, by route.")
        for (route, histogram) in snapshot.latency.sorted(by: { $0.key < $1.key }) {
            histogramLines(
                "grona_http_request_duration_seconds", "route=\(label(route)),", histogram, Self.latencyBuckets, &out)
        }
        let counters: [(String, String)] = [
            ("grona_events_accepted_total", "Events stored."),
            ("grona_events_duplicate_total", "Events whose eventID was already stored for the workspace."),
            ("grona_events_rejected_total", "Events rejected with a field and a reason."),
            ("grona_grants_issued_total", "Grants handed out by the grants endpoint."),
            ("grona_configs_served_total", "Configuration documents served with a body."),
            ("grona_configs_not_modified_total", "Configuration requests answered 304."),
        ]
        for (name, help) in counters {
            header(name, "counter", help)
            out += "\(name) \(snapshot.counters[name] ?? 0)\n"
        }
        header("grona_event_commit_size", "histogram", "Events written per database transaction (group commit).")
        histogramLines("grona_event_commit_size", "", snapshot.commitSizes, Self.batchBuckets, &out)
        for gauge in gauges {
            header(gauge.name, "gauge", gauge.help)
            out += "\(gauge.name) \(number(gauge.value))\n"
        }
        return out
    }

    private func histogramLines(
        _ name: String, _ labels: String, _ histogram: Histogram, _ bounds: [Double], _ out: inout String
    ) {
        for (index, bound) in bounds.enumerated() {
            out += "\(name)_bucket{\(labels)le=\"\(number(bound))\"} \(histogram.counts[index])\n"
        }
        out += "\(name)_bucket{\(labels)le=\"+Inf\"} \(histogram.total)\n"
        let plain = labels.isEmpty ? "" : "{\(labels.dropLast())}"
        out += "\(name)_sum\(plain) \(number(histogram.sum))\n"
        out += "\(name)_count\(plain) \(histogram.total)\n"
    }

    /// A label value, quoted and escaped (backslash, quote, newline).
    private func label(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return "\"\(escaped)\""
    }

    private func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Counts and times one answer; the HTTP server calls this as each answer is queued.
    func record(_ answered: HTTPServer.Answered) {
        recordRequest(
            route: answered.route, method: answered.method.description, status: answered.status,
            seconds: answered.seconds)
        if answered.route == ConfigRoutes.configPattern {
            if answered.status == 200 { add("grona_configs_served_total") }
            if answered.status == 304 { add("grona_configs_not_modified_total") }
        }
    }
}
