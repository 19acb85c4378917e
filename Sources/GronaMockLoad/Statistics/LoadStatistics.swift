/// Everything a load run counts: per endpoint, and for the simulated fleet as a whole. A value: the engine keeps
/// one and hands out copies (for the progress line each second, and for the report at the end).
package struct LoadStatistics: Sendable, Equatable {
    package var endpoints: [LoadEndpoint: EndpointStatistics] = Dictionary(
        uniqueKeysWithValues: LoadEndpoint.allCases.map { ($0, EndpointStatistics()) })

    /// Visits due by the schedule (the open model: `--rate` decides, not the answers).
    package var visitsScheduled = 0
    /// The run was stopped before its end (Ctrl-C): the figures cover what ran.
    package var interrupted = false
    /// Visits that started.
    package var visitsStarted = 0
    /// Visits that were due but could not start because the in-flight cap was reached: counted, never silently
    /// skipped (k6's `dropped_iterations`).
    package var visitsDropped = 0

    /// Events the installs logged (each counted once, however many times it was sent).
    package var eventsLogged = 0
    /// Events in batches that were answered 200: accepted, duplicates or rejected.
    package var eventsAcknowledged = 0
    package var eventsAccepted = 0
    /// Events the server said it already had: a retry of a batch whose answer was lost.
    package var eventsDuplicate = 0
    package var eventsRejected = 0
    /// Events in batches answered 200 whose body was not the contract's acknowledgement (`accepted`,
    /// `duplicates`, `rejected` adding up to the batch, contract §7): a trivial sink, or a service that does not
    /// keep the contract. Counted as acknowledged, never as accepted.
    package var eventsUnconfirmed = 0
    /// Events given up on after the last retry; still on a device, in a real SDK.
    package var eventsAbandoned = 0
    /// Events still waiting in a batch, or in flight, when the run ended.
    package var eventsUnsent = 0

    /// Times an answer waited for room in the generator's answer memory (`AnswerMemory`): large answers on many
    /// connections at once. The wait is in those answers' latencies.
    package var answersWaitedForMemory = 0

    /// Configurations that arrived with a body and verified against the JWKS, and those that did not verify.
    package var configsVerified = 0
    package var configsRejected = 0
    /// Grants received and verified, and grants that did not verify.
    package var grantsVerified = 0
    package var grantsRejected = 0

    package init() {}

    /// Every endpoint together.
    package var http: EndpointStatistics {
        endpoints.values.reduce(into: EndpointStatistics()) { $0.merge($1) }
    }

    package subscript(endpoint: LoadEndpoint) -> EndpointStatistics {
        get { endpoints[endpoint] ?? EndpointStatistics() }
        set { endpoints[endpoint] = newValue }
    }

    /// Counts one attempt of `endpoint` in place. Through the subscript, the get-then-set shared each histogram's
    /// 188 KiB of counters with the copy it mutated, and so copied them for every answer (a tenth of the
    /// generator's time at 45,000 events/s).
    package mutating func record(
        _ endpoint: LoadEndpoint, status: Int?, failure: EndpointStatistics.TransportFailure?,
        latencyNanoseconds: UInt64, startLagNanoseconds: UInt64, answerLagNanoseconds: UInt64, isRetry: Bool
    ) {
        endpoints[endpoint, default: EndpointStatistics()].record(
            status: status, failure: failure, latencyNanoseconds: latencyNanoseconds,
            startLagNanoseconds: startLagNanoseconds, answerLagNanoseconds: answerLagNanoseconds, isRetry: isRetry)
    }
}
