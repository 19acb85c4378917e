/// The kinds of injected fault (contract §8), declared once: the rules parse them, list them and name them in
/// their errors from here, and a test walks the cases to check that docs/faults.md and docs/openapi.yaml
/// describe each. Adding one means adding its case here (the compiler then asks for its endpoint and its
/// parameters below, and for its action in `FaultRule`), its effect in `FaultInterception.swift` (the generic
/// kinds) or in the endpoint's own fault file (`ConfigFaults`, `GrantFaults`), its section in docs/faults.md
/// and its name in docs/openapi.yaml (`FaultKind`, and the `FaultRule` schema for its endpoint or parameters).
package enum FaultKind: String, Sendable, CaseIterable {
    /// An error status with the contract's error body, and `Retry-After`.
    case status
    /// The ordinary answer, late.
    case delay
    /// No answer: the connection is closed.
    case drop
    /// The ordinary head, then the body cut short and the connection closed.
    case truncate
    /// A configuration with one byte of every signature flipped.
    case badSignature = "bad_signature"
    /// A configuration signed by a key under a `kid` that no workspace holds.
    case unknownKeyID = "unknown_kid"
    /// A configuration signed by the workspace's own keys under a protected header whose `alg` is not ES256.
    case wrongAlgorithm = "wrong_alg"
    /// Grants whose `exp` is past, beyond the verifiers' leeway.
    case expired
    /// Grants whose `nbf` is ahead, beyond the verifiers' leeway.
    case notYetValid = "not_yet_valid"
    /// Grants for another customer (`sub`).
    case otherCustomer = "other_customer"
    /// Grants for another workspace (`aud`).
    case otherAudience = "other_audience"
    /// Unsecured JWTs (`alg` `none`).
    case unsigned

    /// The only endpoint a kind makes sense on; nil for the kinds every endpoint can suffer.
    package var onlyEndpoint: FaultEngine.Endpoint? {
        switch self {
        case .status, .delay, .drop, .truncate: nil
        case .badSignature, .unknownKeyID, .wrongAlgorithm: .config
        case .expired, .notYetValid, .otherCustomer, .otherAudience, .unsigned: .grants
        }
    }

    /// The parameters the kind takes, beyond the fields every rule has.
    package var parameters: [String] {
        switch self {
        case .status: ["status", "retryAfterSeconds"]
        case .delay: ["delayMs"]
        case .truncate: ["afterBytes"]
        case .drop, .badSignature, .unknownKeyID, .wrongAlgorithm, .expired, .notYetValid, .otherCustomer,
            .otherAudience, .unsigned:
            []
        }
    }

    /// The kinds as an error lists them: `"status", "delay", …`.
    static var listed: String { allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") }
}
