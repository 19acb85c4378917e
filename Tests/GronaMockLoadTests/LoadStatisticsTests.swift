import Testing

@testable import GronaMockLoad

/// The engine counts each answer with `LoadStatistics.record`, in place; what it counts must be what the
/// subscript's get-and-set counted (the tests' fixtures still record that way).
@Suite struct LoadStatisticsTests {
    @Test func recordingInPlaceCountsWhatTheSubscriptCounts() {
        var inPlace = LoadStatistics()
        var viaSubscript = LoadStatistics()
        let attempts: [(LoadEndpoint, Int?, EndpointStatistics.TransportFailure?, UInt64, UInt64, Bool)] = [
            (.events, 200, nil, 2_000_000, 100_000, false), (.events, 503, nil, 9_000_000, 0, true),
            (.config, nil, .timeout, 30_000_000_000, 5_000, false), (.grants, 200, nil, 700_000, 1_000_000, false),
        ]
        for (endpoint, status, failure, latency, lag, retry) in attempts {
            inPlace.record(
                endpoint, status: status, failure: failure, latencyNanoseconds: latency, startLagNanoseconds: lag,
                answerLagNanoseconds: 0, isRetry: retry)
            viaSubscript[endpoint].record(
                status: status, failure: failure, latencyNanoseconds: latency, startLagNanoseconds: lag,
                answerLagNanoseconds: 0, isRetry: retry)
        }
        #expect(inPlace == viaSubscript)
        #expect(inPlace[.events].requests == 2)
        #expect(inPlace[.events].retries == 1)
        #expect(inPlace[.events].startLag.max == 100_000)
        #expect(inPlace.http.failures[.timeout] == 1)
    }
}
