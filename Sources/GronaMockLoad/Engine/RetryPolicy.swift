import GronaMock

/// When a failed batch is sent again: exponential backoff with full jitter (AWS Architecture Blog, "Exponential
/// Backoff and Jitter"), so that a fleet that failed together does not retry together, and never sooner than the
/// server's `Retry-After` (RFC 9110 §10.2.3).
package struct RetryPolicy: Sendable, Equatable {
    package var maxRetries: Int
    package var baseNanoseconds: UInt64
    package var capNanoseconds: UInt64

    package init(maxRetries: Int, base: Duration, cap: Duration = .seconds(30)) {
        self.maxRetries = max(0, maxRetries)
        baseNanoseconds = max(1, base.nanoseconds)
        capNanoseconds = max(baseNanoseconds, cap.nanoseconds)
    }

    /// The wait before retry number `retry` (1 for the first), with `retryAfterSeconds` from the answer if any.
    package func delay(
        beforeRetry retry: Int, retryAfterSeconds: Int?, using random: inout SplitMix64
    ) -> UInt64 {
        let exponent = min(max(retry - 1, 0), 40)
        let (grown, overflow) = baseNanoseconds.multipliedReportingOverflow(by: UInt64(1) << UInt64(exponent))
        let ceiling = overflow ? capNanoseconds : min(grown, capNanoseconds)
        let jittered = UInt64(random.unit() * Double(ceiling))
        guard let seconds = retryAfterSeconds else { return jittered }
        // Retry-After is capped at a day, as the mock's faults are: nothing a run would wait for.
        let told = UInt64(min(max(seconds, 0), 86_400)) * 1_000_000_000
        return max(jittered, told)
    }
}
