import GronaMockJSON

/// Verifies ES256 JWS documents as the SDK and order backends must: `alg` pinned to ES256 (so `none` and
/// algorithm confusion fail), `typ` checked, the key picked by `kid` from a fixed set, every part decoded
/// strictly, and anything malformed rejected with the exact reason.
package enum JWSVerifier {
    /// Why a JWS was refused. The description is a sentence for a person; it never quotes the token.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case malformed(String)
        case algorithmNotAllowed(String)
        case wrongType(expected: String, found: String?)
        case missingKeyID
        case unknownKeyID(String)
        case unsupportedCriticalHeader
        case badSignature

        package var description: String {
            switch self {
            case .malformed(let reason): "malformed JWS: \(reason)"
            case .algorithmNotAllowed(let alg): "alg \(JSONText.quoted(alg.prefix(40))) is not allowed; only ES256"
            case .wrongType(let expected, let found):
                "typ is \(found.map { JSONText.quoted($0.prefix(60)) } ?? "missing"), expected \"\(expected)\""
            case .missingKeyID: "the header names no kid"
            case .unknownKeyID(let kid): "no key with kid \(JSONText.quoted(kid.prefix(64)))"
            case .unsupportedCriticalHeader: "the header has a crit parameter, which this verifier does not support"
            case .badSignature: "the signature does not verify"
            }
        }
    }

    /// A verified compact JWS: its protected header and payload.
    package struct Verified: Sendable {
        package let header: JSONObject
        package let payload: [UInt8]
        package var kid: String? { header["kid"]?.stringValue }
    }

    // MARK: - Compact

    /// Checks only that `token` is a well-formed ES256 JWS signed by `key` (RFC 7515 §5.2): no `typ` or
    /// `kid` policy. This is what RFC 7515 Appendix A.3 exercises.
    package static func verifyCompact(_ token: String, key: P256PublicKey) throws(Failure) -> Verified {
        let parts = try CompactParts(token)
        try checkSignature(parts.signature, input: parts.signingInput, key: key)
        return Verified(header: parts.header, payload: parts.payload)
    }

    /// Verifies a compact JWS of `type` with the key its `kid` names in `keys`.
    package static func verifyCompact(
        _ token: String, keys: [String: P256PublicKey], type: JOSEType
    ) throws(Failure) -> Verified {
        let parts = try CompactParts(token)
        let key = try policy(parts.header, keys: keys, type: type)
        try checkSignature(parts.signature, input: parts.signingInput, key: key)
        return Verified(header: parts.header, payload: parts.payload)
    }

    // MARK: - General JSON Serialization

    /// One signature of a General JSON Serialization document and whether it verified on its own.
    package struct SignatureCheck: Sendable {
        package let kid: String?
        package let result: Result<Void, Failure>

        package var isValid: Bool {
            if case .success = result { return true }
            return false
        }
    }

    /// Checks each signature of a General JSON Serialization document (RFC 7515 §7.2.1) alone. Throws only
    /// when the document itself is malformed.
    package static func verifyGeneral(
        _ document: [UInt8], keys: [String: P256PublicKey], type: JOSEType
    ) throws(Failure) -> (payload: [UInt8], signatures: [SignatureCheck]) {
        guard let root = try? JSONParser().parse(document).objectValue else {
            throw .malformed("the document is not a JSON object")
        }
        guard let encodedPayload = root["payload"]?.stringValue, let payload = Base64.urlDecode(encodedPayload) else {
            throw .malformed("payload is missing or not base64url")
        }
        guard let entries = root["signatures"]?.arrayValue, !entries.isEmpty else {
            throw .malformed("signatures is missing or empty")
        }
        var checks: [SignatureCheck] = []
        for entry in entries {
            guard let object = entry.objectValue, let protected = object["protected"]?.stringValue,
                let signature = object["signature"]?.stringValue
            else {
                checks.append(
                    SignatureCheck(kid: nil, result: .failure(.malformed("a signature lacks protected or signature"))))
                continue
            }
            do throws(Failure) {
                let header = try decodeHeader(protected)
                let kid = header["kid"]?.stringValue
                do throws(Failure) {
                    let key = try policy(header, keys: keys, type: type)
                    try checkSignature(
                        try decodeSignature(signature), input: Array((protected + "." + encodedPayload).utf8), key: key)
                    checks.append(SignatureCheck(kid: kid, result: .success(())))
                } catch {
                    checks.append(SignatureCheck(kid: kid, result: .failure(error)))
                }
            } catch {
                checks.append(SignatureCheck(kid: nil, result: .failure(error)))
            }
        }
        return (payload, checks)
    }

    // MARK: - Parts

    private struct CompactParts {
        let header: JSONObject
        let payload: [UInt8]
        let signature: [UInt8]
        let signingInput: [UInt8]

        init(_ token: String) throws(Failure) {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3 else {
                throw .malformed("a compact JWS has three dot-separated parts, this has \(parts.count)")
            }
            header = try decodeHeader(parts[0])
            guard let payload = Base64.urlDecode(parts[1]) else { throw .malformed("the payload is not base64url") }
            self.payload = payload
            signature = try decodeSignature(parts[2])
            signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        }
    }

    private static func decodeHeader(_ encoded: some StringProtocol) throws(Failure) -> JSONObject {
        guard let bytes = Base64.urlDecode(encoded) else { throw .malformed("the protected header is not base64url") }
        guard let header = try? JSONParser().parse(bytes).objectValue else {
            throw .malformed("the protected header is not a JSON object")
        }
        guard let alg = header["alg"]?.stringValue else { throw .malformed("the protected header has no alg") }
        guard alg == "ES256" else { throw .algorithmNotAllowed(alg) }
        if header["crit"] != nil { throw .unsupportedCriticalHeader }
        return header
    }

    private static func decodeSignature(_ encoded: some StringProtocol) throws(Failure) -> [UInt8] {
        guard let signature = Base64.urlDecode(encoded) else { throw .malformed("the signature is not base64url") }
        // ES256 signatures are R ‖ S, exactly 64 bytes (RFC 7518 §3.4); DER is refused, not converted.
        guard signature.count == 64 else {
            throw .malformed("an ES256 signature is 64 bytes (R ‖ S), this one is \(signature.count)")
        }
        return signature
    }

    private static func policy(
        _ header: JSONObject, keys: [String: P256PublicKey], type: JOSEType
    ) throws(Failure) -> P256PublicKey {
        let typ = header["typ"]?.stringValue
        guard typ == type.rawValue else { throw .wrongType(expected: type.rawValue, found: typ) }
        guard let kid = header["kid"]?.stringValue else { throw .missingKeyID }
        guard let key = keys[kid] else { throw .unknownKeyID(kid) }
        return key
    }

    private static func checkSignature(_ signature: [UInt8], input: [UInt8], key: P256PublicKey) throws(Failure) {
        guard key.isValidSignature(signature, for: input) else { throw .badSignature }
    }
}
