/// The three Grona endpoints a simulated SDK install calls (contract §4, §6, §7), declared once: statistics,
/// reports, thresholds (`events.p99<10ms`) and progress lines all name them from here.
package enum LoadEndpoint: String, Sendable, CaseIterable, Comparable {
    /// `GET /v1/mobile/workspaces/{key}/config`, first fetched and then polled with `If-None-Match`.
    case config
    /// `POST /v1/mobile/grants` with the workspace's secret key, for identified customers.
    case grants
    /// `POST /v1/mobile/events` with a gzipped batch.
    case events

    package static func < (lhs: LoadEndpoint, rhs: LoadEndpoint) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
