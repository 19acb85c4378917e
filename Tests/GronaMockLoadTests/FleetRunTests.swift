import Testing

@testable import GronaMockLoad

/// Short runs of the fleet against a grona-mock in this process, checked with `--verify`: what the issue asks
/// a load run to prove (every acknowledged event stored once, no contract violation) and that a lost
/// acknowledgement is caught. `.serialized`: each starts a server, and the machine has two cores.
@Suite(.serialized) struct FleetRunTests {
    @Test func aCleanRunStoresEveryAcknowledgedEventOnceWithNoViolation() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        var settings = fixture.settings(tag: "clean")
        settings.duration = .milliseconds(2500)
        let (result, verification) = try fixture.runAndVerify(settings)
        let statistics = result.statistics
        #expect(statistics.visitsScheduled == 250)
        #expect(statistics.visitsDropped == 0)
        #expect(statistics.eventsLogged > 0)
        #expect(statistics.eventsAcknowledged == statistics.eventsLogged)
        #expect(statistics.eventsAccepted == statistics.eventsLogged)
        #expect(statistics.configsVerified >= 1)
        #expect(statistics.grantsVerified > 0)
        // Each install fetches the configuration in full as it launches, then polls it with If-None-Match.
        #expect(statistics[.config].statuses[200, default: 0] == 20)
        #expect(statistics[.config].statuses[304, default: 0] > 0)
        #expect(verification.acknowledged == statistics.eventsLogged)
        #expect(verification.stored == verification.acknowledged)
        #expect(verification.sampleViolations == [])
        #expect(verification.passed)
        // Every attempt has a start lag, and it is a part of that attempt's latency.
        let http = statistics.http
        #expect(http.startLag.count == UInt64(http.requests))
        #expect(http.startLag.max > 0, "a hand-over is never at the very nanosecond it was due")
        #expect(http.startLag.max <= http.latency.max)
    }

    /// `truncate` stores the batch and cuts the answer: the fleet retries the same eventIDs, the server counts
    /// them as duplicates, and nothing is stored twice.
    @Test func lostAnswersAreRetriedAsDuplicatesAndStillVerify() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        try fixture.addFault(#"{"endpoint": "events", "kind": "truncate", "count": 4}"#)
        let (result, verification) = try fixture.runAndVerify(fixture.settings(tag: "dups"))
        #expect(result.statistics[.events].failures[.closed] == 4)
        #expect(result.statistics[.events].retries >= 4)
        #expect(result.statistics.eventsDuplicate > 0)
        #expect(result.statistics.eventsAbandoned == 0)
        #expect(verification.doubled == 0)
        #expect(verification.passed, "\(verification)")
    }

    /// The same fault without retries: the batches are stored but never acknowledged, and `--verify` says so.
    @Test func aLostAcknowledgementIsCaught() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        try fixture.addFault(#"{"endpoint": "events", "kind": "truncate", "count": 2}"#)
        var settings = fixture.settings(tag: "lost")
        settings.maxRetries = 0
        let (result, verification) = try fixture.runAndVerify(settings)
        #expect(result.statistics.eventsAbandoned > 0)
        #expect(verification.unacknowledged == result.statistics.eventsAbandoned)
        #expect(verification.lost == 0)
        #expect(!verification.passed)
    }

    /// A 429 storm with Retry-After: every batch gets through in the end, each refused attempt was retried. Five
    /// refusals, so that even one batch refused every time is within `--max-retries` 5.
    @Test func aStormOf429IsRiddenOut() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        try fixture.addFault(
            #"{"endpoint": "events", "kind": "status", "status": 429, "retryAfterSeconds": 1, "count": 5}"#)
        let (result, verification) = try fixture.runAndVerify(fixture.settings(tag: "storm"))
        let events = result.statistics[.events]
        #expect(events.statuses[429] == 5)
        #expect(events.retries >= 5)
        #expect(result.statistics.eventsAbandoned == 0)
        #expect(result.statistics.eventsAcknowledged == result.statistics.eventsLogged)
        #expect(verification.passed, "\(verification)")
    }

    /// With one request allowed in flight and answers held back, visits due meanwhile are dropped and counted.
    @Test func visitsDueAtTheCapAreDroppedAndCounted() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        try fixture.addFault(#"{"endpoint": "events", "kind": "delay", "delayMs": 400, "count": 1000}"#)
        var settings = fixture.settings(tag: "cap")
        settings.maxInFlight = 1
        settings.batchSize = 1
        settings.secretKey = nil
        let (result, verification) = try fixture.runAndVerify(settings)
        let statistics = result.statistics
        #expect(statistics.visitsDropped > 0)
        #expect(statistics.visitsStarted + statistics.visitsDropped == statistics.visitsScheduled)
        #expect(verification.passed, "\(verification)")
    }

    /// Offline installs queue their events and flush the backlog in batches of the size limit when back.
    @Test func offlineInstallsFlushTheirBacklog() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        var settings = fixture.settings(tag: "offline")
        settings.offlineShare = 1
        settings.offlineDuration = .milliseconds(500)
        let (result, verification) = try fixture.runAndVerify(settings)
        #expect(result.statistics.eventsAcknowledged == result.statistics.eventsLogged)
        #expect(verification.passed, "\(verification)")
    }

    @Test func aTargetThatIsNotThereCannotStartARun() throws {
        var settings = LoadSettings()
        settings.port = 1
        #expect(throws: LoadRunError.self) { _ = try FleetRunner(settings: settings) }
    }
}
