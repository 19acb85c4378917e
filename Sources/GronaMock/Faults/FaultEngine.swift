/// Injected faults (contract §8): rules that make the Grona endpoints fail in the ways an SDK must survive.
///
/// The endpoints consult `decide(for:)` once per request; the `/_mock/faults` API adds, lists and clears
/// rules. (The rules themselves are being built: until then no rule ever fires.)
public final class FaultEngine: Sendable {
    /// The endpoints a rule can target.
    public enum Endpoint: String, Sendable, CaseIterable {
        case config, grants, events
    }

    public init() {}

    /// The fault to apply to this request, if a rule fires for it.
    func decide(for endpoint: Endpoint) -> FaultAction? { nil }

    /// Removes every rule (`POST /_mock/reset`).
    public func clear() {}
}

/// What a firing rule does to one request.
enum FaultAction: Sendable, Equatable {
    case status(code: Int, retryAfterSeconds: Int?)
    case delay(milliseconds: Int)
    case dropConnection
    case truncateBody(afterBytes: Int?)
    case configBadSignature
    case configUnknownKeyID
    case grantExpired
    case grantNotYetValid
    case grantOtherCustomer
    case grantOtherAudience
    case grantUnsigned
}
