import Foundation

// Faults and violations (docs/faults.md, docs/violations.md), shared with the in-process test kit
// (`GronaMockFault`, `GronaMockEndpoint`, `GronaMockFaultRule`, `GronaMockViolation` there).
extension GronaMockClient {
    /// A way for a Grona endpoint to fail, as an SDK must survive it (docs/faults.md).
    public enum Fault: Sendable, Hashable {
        /// An error status, with `Retry-After` when given.
        case status(Int, retryAfterSeconds: Int? = nil)
        /// The answer, late.
        case delay(milliseconds: Int)
        /// No answer: the connection is closed.
        case drop
        /// The answer's body cut after `afterBytes`.
        case truncate(afterBytes: Int)
        /// Config only: every signature of the document flipped.
        case badSignature
        /// Config only: signed by a key the SDK does not know.
        case unknownKeyID
        /// Config only: signed by the workspace's keys under a protected header whose `alg` is not ES256.
        case wrongAlgorithm
        /// Grants only: a grant already expired.
        case expiredGrant
        /// Grants only: a grant not valid yet.
        case notYetValidGrant
        /// Grants only: a grant for another customer.
        case otherCustomerGrant
        /// Grants only: a grant for another workspace.
        case otherAudienceGrant
        /// Grants only: a grant with no signature.
        case unsignedGrant

        /// The rule's `kind` on the wire (docs/faults.md).
        package var kind: String {
            switch self {
            case .status: "status"
            case .delay: "delay"
            case .drop: "drop"
            case .truncate: "truncate"
            case .badSignature: "bad_signature"
            case .unknownKeyID: "unknown_kid"
            case .wrongAlgorithm: "wrong_alg"
            case .expiredGrant: "expired"
            case .notYetValidGrant: "not_yet_valid"
            case .otherCustomerGrant: "other_customer"
            case .otherAudienceGrant: "other_audience"
            case .unsignedGrant: "unsigned"
            }
        }

        /// The rule's numeric fields beside `kind` (`status`, `retryAfterSeconds`, `delayMs`, `afterBytes`).
        package var parameters: [(name: String, value: Int)] {
            switch self {
            case .status(let status, let retryAfter):
                [("status", status)] + (retryAfter.map { [("retryAfterSeconds", $0)] } ?? [])
            case .delay(let milliseconds): [("delayMs", milliseconds)]
            case .truncate(let afterBytes): [("afterBytes", afterBytes)]
            case .drop, .badSignature, .unknownKeyID, .wrongAlgorithm, .expiredGrant, .notYetValidGrant,
                .otherCustomerGrant, .otherAudienceGrant, .unsignedGrant:
                []
            }
        }
    }

    /// The endpoints a fault can target.
    public enum Endpoint: String, Sendable, Hashable, CaseIterable {
        case config, grants, events, all
    }

    /// A fault rule as the mock lists it, with its counts.
    public struct FaultRule: Sendable, Hashable, Decodable {
        public let id: String
        /// The rule's `kind` (`status`, `delay`, `bad_signature`, ...).
        public let kind: String
        public let workspace: String?
        /// Requests the rule acted on.
        public let fired: Int
        /// Fires left; nil for a rule without a count.
        public let remaining: Int?

        package init(id: String, kind: String, workspace: String?, fired: Int, remaining: Int?) {
            self.id = id
            self.kind = kind
            self.workspace = workspace
            self.fired = fired
            self.remaining = remaining
        }
    }

    /// A breach of the SDK's side of the contract, found in the stored events (docs/violations.md).
    public struct Violation: Sendable, Hashable, Decodable, CustomStringConvertible {
        /// The rule's wire name, such as `wrong_assignment` or `offer_without_grant`.
        public let rule: String
        public let eventIDs: [String]
        /// How many events the violation involves: `eventIDs.count`, unless a `repeated_in_visit` group was too
        /// long to list whole and `eventIDs` holds its first 1,000.
        public let eventCount: Int
        /// A sentence saying what was wrong.
        public let message: String

        package init(rule: String, eventIDs: [String], eventCount: Int? = nil, message: String) {
            self.rule = rule
            self.eventIDs = eventIDs
            self.eventCount = max(eventCount ?? eventIDs.count, eventIDs.count)
            self.message = message
        }

        private enum CodingKeys: String, CodingKey {
            case rule, eventIDs, eventCount, message
        }

        /// `eventCount` is in the answer only when the list was cut short.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                rule: try container.decode(String.self, forKey: .rule),
                eventIDs: try container.decode([String].self, forKey: .eventIDs),
                eventCount: try container.decodeIfPresent(Int.self, forKey: .eventCount),
                message: try container.decode(String.self, forKey: .message))
        }

        public var description: String { "\(rule): \(message)" }
    }
}
