/// Verifies a configuration document (contract §4, service protocol "Configuration"): a JWS in General JSON
/// Serialization (RFC 7515 §7.2.1) used only if one of its signatures verifies with a key of `configKeys`, and
/// only if its payload names this workspace. Signatures with other kids are ignored, not fatal: during a
/// rotation a document carries one signature per key and the SDK knows only some of them.
public struct ConfigurationVerifier: Sendable {
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case noValidSignature([String])
        case otherWorkspace(String)
        case unknownType(String)

        public var description: String {
            switch self {
            case .malformed(let reason): "not a configuration document: \(reason)"
            case .noValidSignature(let reasons): "no signature verifies (\(reasons.joined(separator: "; ")))"
            case .otherWorkspace(let key): "the payload is workspace \"\(key)\"'s"
            case .unknownType(let type): "unknown content type \"\(type)\""
            }
        }
    }

    public let keys: KeyRing
    public let workspaceKey: String
    public let mutation: Mutation?

    public init(keys: KeyRing, workspaceKey: String, mutation: Mutation?) {
        self.keys = keys
        self.workspaceKey = workspaceKey
        self.mutation = mutation
    }

    public func verify(_ document: [UInt8]) -> Result<Configuration, Refusal> {
        guard let json = try? JSONParser.parse(document), let payloadText = json["payload"]?.stringValue,
            let signatures = json["signatures"]?.arrayValue
        else { return .failure(.malformed("not {\"payload\", \"signatures\": [...]}")) }
        if mutation != .skipSignatureVerification {
            var reasons: [String] = []
            let verified = signatures.contains { signature in
                guard let protected = signature["protected"]?.stringValue,
                    let value = signature["signature"]?.stringValue
                else {
                    reasons.append("a signature without protected or signature")
                    return false
                }
                let check = JOSESignature(
                    protectedText: Substring(protected), payloadText: Substring(payloadText),
                    signatureText: Substring(value))
                switch check.check(type: "grona-config+jws", keys: trustedKeys, leniency: leniency) {
                case .success: return true
                case .failure(let refusal):
                    reasons.append("\(refusal)")
                    return false
                }
            }
            guard verified else { return .failure(.noValidSignature(reasons)) }
        }
        guard let payloadBytes = Base64URL.decode(payloadText), let payload = try? JSONParser.parse(payloadBytes),
            let configuration = Configuration(payload: payload)
        else { return .failure(.malformed("the payload is not a configuration")) }
        guard configuration.workspaceKey == workspaceKey || mutation == .acceptOtherWorkspace else {
            return .failure(.otherWorkspace(configuration.workspaceKey))
        }
        // A newer SDK's type is skipped where it would show (contract §4); only the mutant refuses it all.
        if mutation == .crashOnUnknownType, let unknown = configuration.unknownTypes.first {
            return .failure(.unknownType(unknown))
        }
        return .success(configuration)
    }

    /// `drop-next-key`: only the current key, so a document signed by the next key alone is refused.
    private var trustedKeys: KeyRing {
        mutation == .dropNextKey ? keys.firstOnly : keys
    }

    private var leniency: JOSESignature.Leniency {
        JOSESignature.Leniency(
            trustUnknownKeyIDs: mutation == .acceptAnyKid, ignoreAlgorithm: mutation == .acceptWrongAlgorithm)
    }
}
