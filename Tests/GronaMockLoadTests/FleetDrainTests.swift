import Testing

@testable import GronaMockLoad

/// The run's snapshots and its end: what "in flight" counts, the drain after `--duration`, a run stopped
/// early (Ctrl-C), and the time an install spends offline, which is not the service's.
@Suite(.serialized) struct FleetDrainTests {
    /// Answers held back 300 ms with two connections: batches and polls wait behind the cap. "in flight" counted
    /// them (80 with a cap of 4); it is what is on a connection, and the rest is `queued`.
    @Test func inFlightStaysWithinTheCapAndTheRestIsQueued() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        try fixture.addFault(#"{"endpoint": "events", "kind": "delay", "delayMs": 300, "count": 1000}"#)
        var settings = fixture.settings(tag: "queue")
        settings.maxInFlight = 2
        settings.secretKey = nil
        let runner = try FleetRunner(settings: settings)
        var snapshots: [LoadProgress] = []
        runner.onProgress { snapshots.append($0) }
        let result = runner.run()
        #expect(result.statistics.eventsAcknowledged == result.statistics.eventsLogged)
        #expect(!snapshots.isEmpty)
        for snapshot in snapshots { #expect(snapshot.inFlight <= 2, "\(snapshot.inFlight) in flight") }
        let draining = snapshots.filter(\.draining)
        #expect(!draining.isEmpty, "no snapshot after --duration while batches were waiting")
        #expect(draining.contains { $0.queued > 0 })
        #expect(snapshots.allSatisfy { $0.draining == ($0.elapsedSeconds >= 1) })
    }

    /// A stop request ends the schedule at once, sends what is pending and reports what ran.
    @Test func aStopRequestDrainsAndMarksTheRunInterrupted() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        var settings = fixture.settings(tag: "stop")
        settings.duration = .seconds(600)
        settings.secretKey = nil
        let runner = try FleetRunner(settings: settings)
        runner.stopWhen { [unowned runner] in runner.statistics.visitsStarted >= 30 }
        let result = runner.run()
        let statistics = result.statistics
        #expect(statistics.interrupted)
        #expect(statistics.visitsScheduled >= 30)
        #expect(statistics.visitsScheduled < 600 * 100)
        #expect(statistics.eventsLogged > 0)
        #expect(statistics.eventsAcknowledged == statistics.eventsLogged)
        #expect(statistics.eventsUnsent == 0)
        let verification = try RunVerifier(settings: settings, result: result).verify()
        #expect(verification.passed, "\(verification)")
    }

    /// Installs offline for 2 s log events they cannot send. The batch that waited for the device to come back
    /// was timed from when it was full, so the 2 s offline showed as the service's latency (p99 1.86 s).
    @Test func timeOfflineIsNotTheServicesLatency() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        var settings = fixture.settings(tag: "away")
        settings.duration = .seconds(3)
        settings.offlineShare = 1
        settings.offlineDuration = .seconds(2)
        settings.secretKey = nil
        let result = try FleetRunner(settings: settings).run()
        let events = result.statistics[.events]
        #expect(result.statistics.eventsAcknowledged == result.statistics.eventsLogged)
        #expect(events.requests > 0)
        #expect(events.latency.max < 1_000_000_000, "events max \(events.latency.max) ns")
    }

    /// Stored but never acknowledged: the report can name some, to look them up in the server's log.
    @Test func verifySamplesUnacknowledgedEvents() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        try fixture.addFault(#"{"endpoint": "events", "kind": "truncate", "count": 2}"#)
        var settings = fixture.settings(tag: "unack")
        settings.maxRetries = 0
        let result = try FleetRunner(settings: settings).run()
        let (verification, sample) = try RunVerifier(settings: settings, result: result).verifyWithSamples()
        #expect(verification.unacknowledged > 0)
        #expect(sample.count == min(verification.unacknowledged, 10))
        #expect(sample.allSatisfy { $0.hasPrefix("unack-") })
    }
}
