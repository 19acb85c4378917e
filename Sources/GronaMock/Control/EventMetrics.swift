/// The writer's figures for `GET /_mock/metrics`: per transaction its duration, its batches and its events,
/// and per workspace the events by type and outcome.
///
/// The writer records a whole group at once, under the metrics lock, in fixed slots: no string is built or
/// hashed per event, only the workspace key once per batch. Names and labels are written at scrape time.
struct EventMetrics {
    /// What one transaction of the writer did.
    struct Commit {
        /// From BEGIN to COMMIT done.
        var seconds: Double
        /// Requests' batches in the transaction.
        var batches: Int
        /// Events written (accepted and rejected) in the transaction.
        var events: Int
    }

    /// `grona_events_total{outcome}`, in the order of its slots.
    enum Outcome: Int, CaseIterable {
        case accepted, duplicate, rejected

        var label: String {
            switch self {
            case .accepted: "accepted"
            case .duplicate: "duplicate"
            case .rejected: "rejected"
            }
        }
    }

    /// Upper bounds, in seconds, of the commit duration buckets: a WAL commit without fsync takes well under a
    /// millisecond for a small group, a large group tens of milliseconds.
    static let durationBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    ]
    /// Upper bounds of the batches-per-transaction buckets (the writer takes at most 256 jobs at once).
    static let requestBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    /// Upper bounds of the events-per-transaction buckets.
    static let sizeBuckets: [Double] = [1, 10, 50, 100, 500, 1000, 5000, 10000, 50000]

    private var durations = MetricsHistogram(bounds: durationBuckets)
    private var requests = MetricsHistogram(bounds: requestBuckets)
    private var sizes = MetricsHistogram(bounds: sizeBuckets)
    /// Per workspace, `Outcome.allCases.count` rows of `EventTypeCounts.slotCount` slots.
    private var byWorkspace: [String: [Int]] = [:]

    /// Records one transaction and, for each batch it wrote, what became of its events.
    mutating func record(_ commit: Commit, batches: [(EventBatch, EventBatchResult)]) {
        durations.observe(commit.seconds)
        if commit.batches > 0 { requests.observe(Double(commit.batches)) }
        if commit.events > 0 { sizes.observe(Double(commit.events)) }
        let slots = EventTypeCounts.slotCount
        for (batch, result) in batches {
            let accepted = Outcome.accepted.rawValue * slots
            let duplicate = Outcome.duplicate.rawValue * slots
            let rejected = Outcome.rejected.rawValue * slots
            let sent = batch.accepted.typeCounts.counts
            let refused = batch.rejectedTypes.counts
            let rows = batch.accepted.rows
            // Taken out and put back: one lookup each way, and the slots are updated in place.
            var counts = byWorkspace.removeValue(forKey: batch.workspaceKey) ?? Self.zero
            for slot in 0..<slots {
                counts[accepted + slot] += sent[slot]
                counts[rejected + slot] += refused[slot]
            }
            for index in result.duplicateIndexes where rows.indices.contains(index) {
                let slot = rows[index].typeSlot
                counts[accepted + slot] -= 1
                counts[duplicate + slot] += 1
            }
            byWorkspace[batch.workspaceKey] = counts
        }
    }

    private static let zero = [Int](repeating: 0, count: Outcome.allCases.count * EventTypeCounts.slotCount)

    /// Events of one outcome, all workspaces and types together (the unlabeled `grona_events_*_total`).
    func total(_ outcome: Outcome) -> Int {
        let slots = EventTypeCounts.slotCount
        let start = outcome.rawValue * slots
        return byWorkspace.values.reduce(0) { sum, counts in sum + counts[start..<start + slots].reduce(0, +) }
    }

    /// The writer's histograms and the labeled event counter, as exposition lines.
    func render(into out: inout String) {
        MetricsText.header("grona_events_total", "counter", "Events by workspace, type and outcome.", &out)
        let slots = EventTypeCounts.slotCount
        for (workspace, counts) in byWorkspace.sorted(by: { $0.key < $1.key }) {
            for outcome in Outcome.allCases {
                for slot in 0..<slots {
                    out += "grona_events_total{workspace=\(MetricsText.label(workspace)),"
                    out += "type=\"\(EventTypeCounts.label(ofSlot: slot))\",outcome=\"\(outcome.label)\"} "
                    out += "\(counts[outcome.rawValue * slots + slot])\n"
                }
            }
        }
        MetricsText.header(
            "grona_event_commit_size", "histogram", "Events written per database transaction (group commit).", &out)
        sizes.render("grona_event_commit_size", "", &out)
        MetricsText.header(
            "grona_event_commit_requests", "histogram", "Requests' batches written per database transaction.", &out)
        requests.render("grona_event_commit_requests", "", &out)
        MetricsText.header(
            "grona_event_commit_duration_seconds", "histogram",
            "Time of one events transaction, from BEGIN to COMMIT done.", &out)
        durations.render("grona_event_commit_duration_seconds", "", &out)
    }
}
