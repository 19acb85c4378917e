/// What one endpoint saw during a run: every request attempt (a retry is an attempt of its own), how it ended,
/// and how long it took from its intended start.
package struct EndpointStatistics: Sendable, Equatable {
    /// How an attempt that got no HTTP status failed.
    package enum TransportFailure: String, Sendable, CaseIterable, Comparable {
        /// The connection could not be made (refused, unreachable, timed out while connecting).
        case connect
        /// The connection closed or reset before a whole answer arrived.
        case closed
        /// No whole answer within the request timeout.
        case timeout
        /// The answer was not HTTP/1.1 the client could read.
        case malformed
        /// The answer passed what the client keeps of one (its endpoint's `AnswerLimit`, or a head over
        /// `HTTPResponseParser.maximumHeadBytes`): given up there, its connection closed.
        case answerTooLarge = "answer_too_large"
        /// HTTPS: the server's certificate does not chain to a CA the generator trusts (the system store, or
        /// `--cacert`).
        case tlsUnknownCA = "tls_unknown_ca"
        /// HTTPS: the certificate is not for the URL's host (RFC 6125).
        case tlsNameMismatch = "tls_name_mismatch"
        /// HTTPS: the certificate was refused otherwise (expired, not yet valid, not for a server).
        case tlsCertificate = "tls_certificate"
        /// HTTPS: no TLS session came of the connection: not TLS, a fatal alert, no common version or suite, the
        /// server closed it or did not finish within `--timeout`.
        case tlsHandshake = "tls_handshake"

        package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Attempts that ended, with a status or a failure.
    package private(set) var requests = 0
    /// Attempts by HTTP status.
    package private(set) var statuses: [Int: Int] = [:]
    /// Attempts that got no status, by why.
    package private(set) var failures: [TransportFailure: Int] = [:]
    /// Attempts that were retries of an earlier one.
    package private(set) var retries = 0
    /// Latency of every attempt that ended, with a status or not, from its intended start (so that a stall of the
    /// generator or of the server is not hidden: coordinated omission).
    package private(set) var latency = LatencyHistogram()
    /// How late each attempt was handed to the client, from the same intended start: the part of `latency` the
    /// generator added before sending. When it is large the latency says as much about the generator's machine
    /// as about the target.
    package private(set) var startLag = LatencyHistogram()
    /// How long each answer waited, arrived, before the generator read it (from the kernel's receive stamp;
    /// Linux only, 0 elsewhere): the part of `latency` the generator added after the answer.
    package private(set) var answerLag = LatencyHistogram()

    package init() {}

    /// Statistics as a report wrote them (`EndpointStatistics+Codec.swift`), for a merge of shards' reports.
    init(
        requests: Int, statuses: [Int: Int], failures: [TransportFailure: Int], retries: Int,
        latency: LatencyHistogram, startLag: LatencyHistogram, answerLag: LatencyHistogram
    ) {
        self.requests = requests
        self.statuses = statuses
        self.failures = failures
        self.retries = retries
        self.latency = latency
        self.startLag = startLag
        self.answerLag = answerLag
    }

    /// Attempts that failed: no status, or a status of 400 or more. A 304 is a success.
    package var errors: Int {
        failures.values.reduce(0, +) + statuses.reduce(0) { $0 + ($1.key >= 400 ? $1.value : 0) }
    }

    /// Counts one attempt: `status` nil with `failure` when it got no answer.
    package mutating func record(
        status: Int?, failure: TransportFailure? = nil, latencyNanoseconds: UInt64, startLagNanoseconds: UInt64,
        answerLagNanoseconds: UInt64, isRetry: Bool
    ) {
        requests += 1
        if let status {
            statuses[status, default: 0] += 1
        } else {
            failures[failure ?? .closed, default: 0] += 1
        }
        if isRetry { retries += 1 }
        latency.record(nanoseconds: latencyNanoseconds)
        startLag.record(nanoseconds: startLagNanoseconds)
        answerLag.record(nanoseconds: answerLagNanoseconds)
    }

    package mutating func merge(_ other: EndpointStatistics) {
        requests += other.requests
        statuses.merge(other.statuses, uniquingKeysWith: +)
        failures.merge(other.failures, uniquingKeysWith: +)
        retries += other.retries
        latency.merge(other.latency)
        startLag.merge(other.startLag)
        answerLag.merge(other.answerLag)
    }
}
