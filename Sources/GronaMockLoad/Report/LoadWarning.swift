/// Something in a finished run that looks broken even though no threshold asked about it: every grant refused,
/// nothing acknowledged, most visits dropped. A warning is printed with the report (and listed in the JSON
/// report's `warnings`) but does not change the exit status: a pipeline that must fail on one gates on the
/// matching threshold metric (`--threshold 'events.unsent==0'`, see `RunStatistic`).
package struct LoadWarning: Sendable, Equatable {
    package enum Code: String, Sendable, CaseIterable {
        /// Every grants request failed; a 401 or 403 points at `--secret-key`.
        case grantsFailed = "grants_failed"
        /// Events were logged and none was acknowledged.
        case nothingAcknowledged = "nothing_acknowledged"
        /// More than `droppedShareLimit` of the scheduled visits were dropped at the in-flight cap.
        case visitsDropped = "visits_dropped"
        case eventsAbandoned = "events_abandoned"
        case eventsUnsent = "events_unsent"
        case configsRejected = "configs_rejected"
        case grantsRejected = "grants_rejected"
        /// Batches answered 200 without the contract's acknowledgement (§7).
        case eventsUnconfirmed = "events_unconfirmed"
        /// Answers were longer than the generator keeps of one (`AnswerLimit`): counted as `answer_too_large`.
        case answersTooLarge = "answers_too_large"
        /// The generator handed requests to its client late enough to make up much of the tail latency.
        case generatorLate = "generator_late"
        /// Answers waited for room in the generator's answer memory, which their latencies include.
        case generatorMemory = "generator_memory"
        /// The run was stopped by Ctrl-C.
        case interrupted
    }

    package var code: Code
    /// A sentence for people, naming the figure and what to check.
    package var message: String

    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The share of dropped visits above which a run did not offer the rate it was asked to.
    package static let droppedShareLimit = 0.1

    /// The start lag p99 from which it is worth a warning: at least a millisecond, and at least this share of
    /// the latency p99 it is part of.
    package static let lateFloorNanoseconds: UInt64 = 1_000_000
    package static let lateShareLimit = 0.25
}

extension LoadReport {
    /// The run's warnings, in the order of `LoadWarning.Code`.
    package var warnings: [LoadWarning] {
        LoadWarning.Code.allCases.compactMap { code in message(for: code).map { LoadWarning(code: code, message: $0) } }
    }

    /// The warning's sentence when the run shows it, nil when it does not.
    private func message(for code: LoadWarning.Code) -> String? {
        let counts = statistics
        switch code {
        case .grantsFailed:
            let grants = counts[.grants]
            guard grants.requests > 0, grants.errors == grants.requests else { return nil }
            let refused = grants.statuses.keys.contains { $0 == 401 || $0 == 403 }
            return "every grants request failed (\(Self.outcomes(of: grants)))"
                + (refused ? "; the service refused the secret key: check --secret-key" : "")
        case .nothingAcknowledged:
            guard counts.eventsLogged > 0, counts.eventsAcknowledged == 0 else { return nil }
            let events = counts[.events]
            let answers = events.requests > 0 ? " (\(Self.outcomes(of: events)))" : ", and no batch was answered"
            return "\(counts.eventsLogged) events were logged and none was acknowledged\(answers)"
        case .visitsDropped:
            let share = ReportFormat.fraction(counts.visitsDropped, of: counts.visitsScheduled)
            guard share > LoadWarning.droppedShareLimit else { return nil }
            return "\(ReportFormat.percent(share)) of the visits were dropped at the cap of \(run.maxInFlight) "
                + "requests in flight: the run offered less than its rate; raise --max-in-flight or lower --rate"
        case .eventsAbandoned:
            guard counts.eventsAbandoned > 0 else { return nil }
            return "\(counts.eventsAbandoned) events were given up on (after the last retry, or a 4xx other than "
                + "408 and 429)"
        case .eventsUnsent:
            guard counts.eventsUnsent > 0 else { return nil }
            return "\(counts.eventsUnsent) events were still waiting or in flight when the run stopped waiting "
                + "for answers"
        case .configsRejected:
            guard counts.configsRejected > 0 else { return nil }
            return "\(counts.configsRejected) configurations did not verify against the workspace's JWKS"
        case .grantsRejected:
            guard counts.grantsRejected > 0 else { return nil }
            return "\(counts.grantsRejected) grants did not verify (signature, audience, times or customer)"
        case .eventsUnconfirmed:
            guard counts.eventsUnconfirmed > 0 else { return nil }
            return "\(counts.eventsUnconfirmed) events were answered 200 without the contract's counts "
                + "(accepted, duplicates, rejected; contract §7): counted as acknowledged, not as accepted; "
                + "is the target a Grona service?"
        case .answersTooLarge:
            let tooLarge = LoadEndpoint.allCases.compactMap { endpoint -> String? in
                let count = counts[endpoint].failures[.answerTooLarge] ?? 0
                return count > 0 ? "\(endpoint.rawValue) \(count)" : nil
            }
            guard !tooLarge.isEmpty else { return nil }
            let limits = LoadEndpoint.allCases.map { "\($0.rawValue) \(AnswerLimit.text(AnswerLimit.bytes(for: $0)))" }
            return "answers were longer than a Grona service's can be (\(tooLarge.joined(separator: ", "))): each was "
                + "given up at the generator's limit (\(limits.joined(separator: ", "))) and counted as an error, "
                + "answer_too_large; is the target streaming without end?"
        case .generatorLate:
            // The larger of the two lags: either alone is the generator's, on top of the target's time.
            let all = counts.http
            guard all.startLag.count > 0 else { return nil }
            let start = all.startLag.value(atPercentile: 99)
            let answer = all.answerLag.value(atPercentile: 99)
            let latency = all.latency.value(atPercentile: 99)
            let lag = max(start, answer)
            guard lag >= LoadWarning.lateFloorNanoseconds, Double(lag) >= LoadWarning.lateShareLimit * Double(latency)
            else { return nil }
            return "the generator was late (start lag p99 \(ReportFormat.latency(nanoseconds: start)), answer lag "
                + "p99 \(ReportFormat.latency(nanoseconds: answer)), of the latency p99 "
                + "\(ReportFormat.latency(nanoseconds: latency))): the latencies include its own delay; give it a "
                + "core the target does not use, or lower --rate"
        case .generatorMemory:
            guard counts.answersWaitedForMemory > 0 else { return nil }
            return "answers waited \(counts.answersWaitedForMemory) times for room in the generator's memory for "
                + "answers (\(AnswerLimit.text(HTTPClient.Configuration.defaultAnswerMemory)) for all at once): large answers on many connections; their latencies include "
                + "the wait"
        case .interrupted:
            guard counts.interrupted else { return nil }
            return "the run was interrupted (Ctrl-C): the figures cover what ran until then"
        }
    }

    /// An endpoint's answers in a few words: `401: 12, timeout 3`.
    private static func outcomes(of endpoint: EndpointStatistics) -> String {
        let statuses = endpoint.statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        let failures = endpoint.failures.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
        return (statuses + failures).joined(separator: ", ")
    }
}
