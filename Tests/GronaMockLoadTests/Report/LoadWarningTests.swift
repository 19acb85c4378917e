import GronaMockJSON
import Testing

@testable import GronaMockLoad

/// Runs that look broken are flagged in the report even without a threshold, and their exit status is not
/// changed by it (finding 10 of the fresh-eyes review).
@Suite struct LoadWarningTests {
    /// A run of 10 s in which nothing went wrong: 100 visits, 500 events all accepted.
    private static var clean: LoadStatistics {
        var statistics = LoadStatistics()
        statistics.visitsScheduled = 100
        statistics.visitsStarted = 100
        statistics.eventsLogged = 500
        statistics.eventsAcknowledged = 500
        statistics.eventsAccepted = 500
        statistics.configsVerified = 20
        for _ in 0..<10 {
            statistics[.events].record(
                status: 200, latencyNanoseconds: 1_000_000, startLagNanoseconds: 0, answerLagNanoseconds: 0,
                isRetry: false)
        }
        for _ in 0..<4 {
            statistics[.grants].record(
                status: 200, latencyNanoseconds: 1_000_000, startLagNanoseconds: 0, answerLagNanoseconds: 0,
                isRetry: false)
        }
        return statistics
    }

    private static func report(_ change: (inout LoadStatistics) -> Void) -> LoadReport {
        var statistics = clean
        change(&statistics)
        return LoadReport(run: ReportFixtures.run, statistics: statistics, elapsedSeconds: 10)
    }

    /// Ten events answered 200, each with these latency and lags (nanoseconds), in place of the clean run's.
    static func lagged(latency: UInt64, start: UInt64, answer: UInt64) -> @Sendable (inout LoadStatistics) -> Void {
        { statistics in
            statistics[.events] = EndpointStatistics()
            for _ in 0..<10 {
                statistics[.events].record(
                    status: 200, latencyNanoseconds: latency, startLagNanoseconds: start,
                    answerLagNanoseconds: answer, isRetry: false)
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var change: @Sendable (inout LoadStatistics) -> Void
        var code: LoadWarning.Code
        /// A piece of the message a person reads.
        var says: String
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "wrong secret key",
            change: { statistics in
                statistics[.grants] = EndpointStatistics()
                for _ in 0..<12 {
                    statistics[.grants].record(
                        status: 401, latencyNanoseconds: 1, startLagNanoseconds: 0, answerLagNanoseconds: 0,
                        isRetry: false)
                }
            },
            code: .grantsFailed, says: "every grants request failed (401: 12); the service refused the secret key"),
        Row(
            name: "grants all timed out",
            change: { statistics in
                statistics[.grants] = EndpointStatistics()
                statistics[.grants].record(
                    status: nil, failure: .timeout, latencyNanoseconds: 1, startLagNanoseconds: 0,
                    answerLagNanoseconds: 0, isRetry: false)
            },
            code: .grantsFailed, says: "every grants request failed (timeout 1)"),
        Row(
            name: "nothing acknowledged",
            change: { statistics in
                statistics.eventsAcknowledged = 0
                statistics.eventsAccepted = 0
                statistics[.events] = EndpointStatistics()
                statistics[.events].record(
                    status: nil, failure: .timeout, latencyNanoseconds: 1, startLagNanoseconds: 0,
                    answerLagNanoseconds: 0, isRetry: false)
                statistics[.events].record(
                    status: 503, latencyNanoseconds: 1, startLagNanoseconds: 0, answerLagNanoseconds: 0, isRetry: true)
            },
            code: .nothingAcknowledged, says: "500 events were logged and none was acknowledged (503: 1, timeout 1)"),
        Row(
            name: "most visits dropped",
            change: { statistics in
                statistics.visitsDropped = 92
                statistics.visitsStarted = 8
            },
            code: .visitsDropped, says: "92.00% of the visits were dropped at the cap of 256 requests in flight"),
        Row(
            name: "events abandoned", change: { $0.eventsAbandoned = 3 }, code: .eventsAbandoned,
            says: "3 events were given up on"),
        Row(
            name: "events unsent", change: { $0.eventsUnsent = 95 }, code: .eventsUnsent,
            says: "95 events were still waiting or in flight"),
        Row(
            name: "configs rejected", change: { $0.configsRejected = 2 }, code: .configsRejected,
            says: "2 configurations did not verify"),
        Row(
            name: "grants rejected", change: { $0.grantsRejected = 4 }, code: .grantsRejected,
            says: "4 grants did not verify"),
        Row(
            name: "answers without the contract's counts", change: { $0.eventsUnconfirmed = 349 },
            code: .eventsUnconfirmed, says: "349 events were answered 200 without the contract's counts"),
        Row(
            name: "answers too large",
            change: { statistics in
                for endpoint in [LoadEndpoint.events, .config, .config] {
                    statistics[endpoint].record(
                        status: nil, failure: .answerTooLarge, latencyNanoseconds: 1, startLagNanoseconds: 0,
                        answerLagNanoseconds: 0, isRetry: false)
                }
            },
            code: .answersTooLarge,
            says: "answers were longer than a Grona service's can be (config 2, events 1): each was given up at the "
                + "generator's limit (config 12 MiB, grants 256 KiB, events 256 KiB) and counted as an error, "
                + "answer_too_large"),
        Row(
            name: "the generator was late",
            change: lagged(latency: 4_000_000, start: 2_000_000, answer: 0),
            code: .generatorLate, says: "the generator was late (start lag p99 2.00ms, answer lag p99 "),
        Row(
            name: "answers were read late",
            change: lagged(latency: 4_000_000, start: 0, answer: 1_500_000),
            code: .generatorLate, says: "answer lag p99 1.50ms, of the latency p99 4.00ms"),
        Row(
            name: "answers waited for memory", change: { $0.answersWaitedForMemory = 7 }, code: .generatorMemory,
            says: "answers waited 7 times for room in the generator's memory for answers (64 MiB for all at once)"),
        Row(
            name: "interrupted", change: { $0.interrupted = true }, code: .interrupted,
            says: "the run was interrupted (Ctrl-C)"),
    ]

    @Test(arguments: rows)
    func flags(_ row: Row) throws {
        let report = Self.report(row.change)
        #expect(report.warnings.map(\.code) == [row.code])
        let warning = try #require(report.warnings.first)
        #expect(warning.message.contains(row.says), "\(warning.message)")
        // A warning is no failure: the exit status stays 0, and the result line says PASS with the warning.
        #expect(report.verdict == .passed)
        #expect(report.text.contains("\nwarnings    \(row.code.rawValue): \(warning.message)\n"))
        #expect(report.text.hasSuffix("\nresult      PASS, with 1 warning\n"))
        let json = try JSONParser().parse(report.jsonText)
        #expect(json["warnings"] == [["code": .string(row.code.rawValue), "message": .string(warning.message)]])
        #expect(json["passed"] == .bool(true))
    }

    @Test func aCleanRunHasNone() throws {
        let report = Self.report { _ in }
        #expect(report.warnings.isEmpty)
        #expect(!report.text.contains("warnings"))
        #expect(report.text.hasSuffix("\nresult      PASS\n"))
        #expect(try JSONParser().parse(report.jsonText)["warnings"] == [])
    }

    /// A tenth of the visits dropped is the limit; the share must be above it.
    @Test func droppedVisitsUpToATenthAreNoWarning() {
        #expect(Self.report { $0.visitsDropped = 10 }.warnings.isEmpty)
        #expect(Self.report { $0.visitsDropped = 11 }.warnings.map(\.code) == [.visitsDropped])
        // No visit scheduled: nothing to drop, no division by zero.
        #expect(Self.report { $0.visitsScheduled = 0 }.warnings.isEmpty)
    }

    /// Nothing logged is nothing to acknowledge; a secret key refused with 403 gets the same hint as 401.
    @Test func edges() {
        let idle = Self.report {
            $0.eventsLogged = 0
            $0.eventsAcknowledged = 0
        }
        #expect(idle.warnings.isEmpty)
        let forbidden = Self.report {
            $0[.grants] = EndpointStatistics()
            $0[.grants].record(
                status: 403, latencyNanoseconds: 1, startLagNanoseconds: 0, answerLagNanoseconds: 0, isRetry: false)
        }
        #expect(forbidden.warnings.first?.message.contains("check --secret-key") == true)
        let mixed = Self.report {
            $0[.grants].record(
                status: 401, latencyNanoseconds: 1, startLagNanoseconds: 0, answerLagNanoseconds: 0, isRetry: false)
        }
        #expect(mixed.warnings.isEmpty, "some grants succeeded")
    }

    /// A start lag under a millisecond, or under a quarter of the latency, is the generator doing its work.
    @Test(arguments: [(900_000, 1_000_000), (1_500_000, 10_000_000)] as [(UInt64, UInt64)])
    func aSmallStartLagIsNoWarning(lag: UInt64, latency: UInt64) {
        let report = Self.report(Self.lagged(latency: latency, start: lag, answer: 0))
        #expect(report.warnings.isEmpty)
    }

    /// Several warnings come in the order of their codes, and the result line counts them.
    @Test func severalInOrder() throws {
        let report = Self.report {
            $0.interrupted = true
            $0.eventsUnsent = 7
            $0.eventsAbandoned = 1
        }
        #expect(report.warnings.map(\.code) == [.eventsAbandoned, .eventsUnsent, .interrupted])
        #expect(report.text.hasSuffix("\nresult      PASS, with 3 warnings\n"))
        let lines = report.text.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("warnings    events_abandoned: ") })
        #expect(lines[start + 1].hasPrefix("            events_unsent: 7 events"))
        #expect(lines[start + 2].hasPrefix("            interrupted: "))
    }

    /// Every code has a stable, distinct name in the JSON.
    @Test func codesAreDistinctSnakeCase() {
        let names = LoadWarning.Code.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" } })
    }
}
