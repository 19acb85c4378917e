/// One JWS signature checked the way the contract pins it (contract §2, RFC 7515 §5.2, RFC 8725 §3.11): the
/// protected header names `alg` `ES256`, the expected `typ` (so a grant cannot pass for a configuration) and a
/// `kid` among the trusted keys, and the 64-byte R‖S signature verifies over `protected.payload`.
struct JOSESignature {
    /// What a check may be told to overlook. Only the configuration's mutations set these; the grant verifier
    /// always checks everything (or, mutated, nothing at all).
    struct Leniency: Sendable {
        /// A signature whose `kid` has no key is trusted without a check.
        var trustUnknownKeyIDs = false
        /// `alg` is not looked at (the signature is still checked as ES256).
        var ignoreAlgorithm = false
    }

    /// Why a signature was not accepted; a sentence for logs, never holding key material.
    enum Refusal: Error, Equatable {
        case malformed(String)
        case wrongAlgorithm(String)
        case wrongType(String)
        case unknownKeyID(String)
        case badSignature
    }

    let protectedText: Substring
    let payloadText: Substring
    let signatureText: Substring

    /// Checks the signature; returns the protected header's `kid` when it is accepted.
    func check(type: String, keys: KeyRing, leniency: Leniency = Leniency()) -> Result<String, Refusal> {
        guard let headerBytes = Base64URL.decode(protectedText),
            let header = try? JSONParser.parse(headerBytes), header.objectValue != nil
        else { return .failure(.malformed("the protected header is not base64url JSON")) }
        let algorithm = header["alg"]?.stringValue ?? ""
        guard algorithm == "ES256" || leniency.ignoreAlgorithm else { return .failure(.wrongAlgorithm(algorithm)) }
        let headerType = header["typ"]?.stringValue ?? ""
        guard headerType == type else { return .failure(.wrongType(headerType)) }
        guard let keyID = header["kid"]?.stringValue else { return .failure(.malformed("no kid")) }
        guard let key = keys[keyID] else {
            return leniency.trustUnknownKeyIDs ? .success(keyID) : .failure(.unknownKeyID(keyID))
        }
        guard let signature = Base64URL.decode(signatureText) else {
            return .failure(.malformed("the signature is not base64url"))
        }
        let signingInput = Array(protectedText.utf8) + [UInt8(ascii: ".")] + Array(payloadText.utf8)
        guard key.verifiesES256(signature: signature, message: signingInput) else { return .failure(.badSignature) }
        return .success(keyID)
    }
}
