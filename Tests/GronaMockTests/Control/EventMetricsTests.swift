import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

/// The events writer's metrics: events by workspace, type and outcome, and per transaction its duration,
/// its batches and its events.
@Suite("GET /_mock/metrics: the events writer")
struct EventMetricsTests {
    private func scrape(_ port: Int) throws -> [PrometheusText.Sample] {
        try PrometheusText.parse(fetch(port, "GET /_mock/metrics HTTP/1.1\r\nHost: x\r\n\r\n").text)
    }

    private func events(_ samples: [PrometheusText.Sample], _ type: String, _ outcome: String) -> Double? {
        PrometheusText.value(
            samples, "grona_events_total", ["workspace": "shop", "type": type, "outcome": outcome])
    }

    @Test("a duplicate and rejected events are counted by workspace, type and outcome, after the commit")
    func eventsByTypeAndOutcome() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let served = SampleEvents.placementEvent("served", id: "a")
            let first = try EventsAPI.post(
                server.port,
                events: [
                    served, served, SampleEvents.purchase(id: "p"),
                    ["eventID": "b", "type": "bogus", "timestamp": 1],
                ])
            #expect(first.status == 200)
            let second = try EventsAPI.post(
                server.port,
                events: [served, SampleEvents.placementEvent("exposure", id: "c", placement: "nowhere")])
            #expect(second.status == 200)
            #expect(second.body["duplicates"]?.int64Value == 1)
            let samples = try scrape(server.port)

            #expect(events(samples, "served", "accepted") == 1)
            #expect(events(samples, "served", "duplicate") == 2)
            #expect(events(samples, "purchase", "accepted") == 1)
            #expect(events(samples, "invalid", "rejected") == 1)
            #expect(events(samples, "exposure", "rejected") == 1)
            #expect(events(samples, "exposure", "accepted") == 0)
            // The unlabeled totals agree with the labeled counter.
            #expect(PrometheusText.value(samples, "grona_events_accepted_total") == 2)
            #expect(PrometheusText.value(samples, "grona_events_duplicate_total") == 2)
            #expect(PrometheusText.value(samples, "grona_events_rejected_total") == 2)
            // Every type of the vocabulary has its series for a workspace that sent events.
            for type in EventType.allCases.map(\.rawValue) + ["invalid"] {
                for outcome in ["accepted", "duplicate", "rejected"] {
                    #expect(events(samples, type, outcome) != nil, "no sample for \(type) \(outcome)")
                }
            }
        }
    }

    @Test("each transaction is observed once: its duration, its batches and its events")
    func commitHistograms() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let before = try scrape(server.port)
            #expect(PrometheusText.value(before, "grona_event_writer_queue_depth") == 0)
            #expect(PrometheusText.value(before, "grona_event_commit_requests_count") == 0)
            for index in 0..<3 {
                let batch = (0..<4).map { SampleEvents.placementEvent("exposure", id: "e\(index)-\($0)") }
                #expect(try EventsAPI.post(server.port, events: batch).status == 200)
            }
            let samples = try scrape(server.port)
            // Sequential requests: each batch its own transaction, of 4 events.
            let transactions = PrometheusText.value(samples, "grona_event_commit_requests_count") ?? 0
            #expect(transactions == 3)
            #expect(PrometheusText.value(samples, "grona_event_commit_requests_sum") == 3)
            #expect(PrometheusText.value(samples, "grona_event_commit_size_sum") == 12)
            #expect(PrometheusText.value(samples, "grona_event_commit_size_bucket", ["le": "1"]) == 0)
            #expect(PrometheusText.value(samples, "grona_event_commit_size_bucket", ["le": "10"]) == 3)
            let durations = PrometheusText.value(samples, "grona_event_commit_duration_seconds_count") ?? 0
            #expect(durations >= 3)
            #expect(
                PrometheusText.value(samples, "grona_event_commit_duration_seconds_bucket", ["le": "+Inf"]) == durations
            )
            #expect((PrometheusText.value(samples, "grona_event_commit_duration_seconds_sum") ?? 0) > 0)
            #expect(PrometheusText.value(samples, "grona_event_writer_queue_depth") == 0)
        }
    }
}
