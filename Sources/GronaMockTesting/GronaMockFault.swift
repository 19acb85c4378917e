import GronaMockJSON

/// A way for a Grona endpoint to fail, as an SDK must survive it (docs/faults.md).
public enum GronaMockFault: Sendable, Hashable {
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

    /// The rule's fields but `endpoint`, `workspace` and `count`.
    var json: JSONObject {
        switch self {
        case .status(let status, let retryAfter):
            var rule: JSONObject = ["kind": "status", "status": .number(JSONNumber(status))]
            if let retryAfter { rule.set("retryAfterSeconds", .number(JSONNumber(retryAfter))) }
            return rule
        case .delay(let milliseconds): return ["kind": "delay", "delayMs": .number(JSONNumber(milliseconds))]
        case .drop: return ["kind": "drop"]
        case .truncate(let afterBytes): return ["kind": "truncate", "afterBytes": .number(JSONNumber(afterBytes))]
        case .badSignature: return ["kind": "bad_signature"]
        case .unknownKeyID: return ["kind": "unknown_kid"]
        case .wrongAlgorithm: return ["kind": "wrong_alg"]
        case .expiredGrant: return ["kind": "expired"]
        case .notYetValidGrant: return ["kind": "not_yet_valid"]
        case .otherCustomerGrant: return ["kind": "other_customer"]
        case .otherAudienceGrant: return ["kind": "other_audience"]
        case .unsignedGrant: return ["kind": "unsigned"]
        }
    }
}

/// The endpoints a fault can target.
public enum GronaMockEndpoint: String, Sendable, Hashable, CaseIterable {
    case config, grants, events, all
}

/// A fault rule as the mock lists it, with its counts.
public struct GronaMockFaultRule: Sendable, Hashable {
    public let id: String
    public let kind: String
    public let workspace: String?
    /// Requests the rule acted on.
    public let fired: Int
    /// Fires left; nil for a rule without a count.
    public let remaining: Int?

    init(_ value: JSONValue) {
        id = value["id"]?.stringValue ?? ""
        kind = value["kind"]?.stringValue ?? ""
        workspace = value["workspace"]?.stringValue
        fired = Int(value["fired"]?.int64Value ?? 0)
        remaining = value["remaining"]?.int64Value.map { Int($0) }
    }
}

/// A breach of the SDK's side of the contract, found in the stored events (docs/violations.md).
public struct GronaMockViolation: Sendable, Hashable, CustomStringConvertible {
    /// The rule's wire name, such as `wrong_assignment` or `offer_without_grant`.
    public let rule: String
    public let eventIDs: [String]
    /// A sentence saying what was wrong.
    public let message: String

    init(_ value: JSONValue) {
        rule = value["rule"]?.stringValue ?? ""
        eventIDs = (value["eventIDs"]?.arrayValue ?? []).compactMap(\.stringValue)
        message = value["message"]?.stringValue ?? ""
    }

    public var description: String { "\(rule): \(message)" }
}
