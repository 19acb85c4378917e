import GronaMockJSON

/// The `typ` values that keep a configuration and a grant from passing for each other (RFC 8725 §3.11).
package enum JOSEType: String, Sendable, CaseIterable {
    case configuration = "grona-config+jws"
    case grant = "grona-grant+jwt"
}

/// A signing key with its key id.
package struct NamedSigningKey: Sendable {
    package let kid: String
    package let key: P256SigningKey

    package init(kid: String, key: P256SigningKey) {
        self.kid = kid
        self.key = key
    }
}

/// Produces ES256 JWS documents (RFC 7515) with the protected header the contract pins:
/// `{"alg":"ES256","kid":…,"typ":…}`.
package enum JWSSigner {
    /// The protected header's exact bytes. Written by hand so its member order and spacing never vary.
    static func protectedHeader(kid: String, type: JOSEType) -> [UInt8] {
        Array("{\"alg\":\"ES256\",\"kid\":\(JSONText.quoted(kid)),\"typ\":\(JSONText.quoted(type.rawValue))}".utf8)
    }

    /// Compact serialization (RFC 7515 §7.1): `header.payload.signature`, each base64url.
    package static func compact(payload: [UInt8], type: JOSEType, signer: NamedSigningKey) throws(CryptoError) -> String
    {
        let signingInput =
            Base64.urlEncode(protectedHeader(kid: signer.kid, type: type)) + "." + Base64.urlEncode(payload)
        let signature = try signer.key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64.urlEncode(signature)
    }

    /// General JSON Serialization (RFC 7515 §7.2.1) with one signature per key, in the order given:
    /// `{"payload":…,"signatures":[{"protected":…,"signature":…},…]}`.
    package static func general(
        payload: [UInt8], type: JOSEType, signers: [NamedSigningKey]
    ) throws(CryptoError) -> [UInt8] {
        let encodedPayload = Base64.urlEncode(payload)
        var entries: [String] = []
        for signer in signers {
            let header = Base64.urlEncode(protectedHeader(kid: signer.kid, type: type))
            let signature = try signer.key.signature(for: Array((header + "." + encodedPayload).utf8))
            entries.append("{\"protected\":\"\(header)\",\"signature\":\"\(Base64.urlEncode(signature))\"}")
        }
        return Array("{\"payload\":\"\(encodedPayload)\",\"signatures\":[\(entries.joined(separator: ","))]}".utf8)
    }
}
