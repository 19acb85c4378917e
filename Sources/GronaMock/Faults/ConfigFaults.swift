import GronaMockJSON

/// The configuration faults (contract §4, §8): a served document that an SDK must refuse, each for one exact
/// reason, built from the real revision so that everything else about it is right.
enum ConfigFaults {
    /// A key id that no workspace's `configKeys` can hold: the SDK has no key for it.
    static let unknownKeyID = "grona-mock-fault-unknown-kid"

    /// The revision as the fault serves it; other actions leave it as it is. The result has its own strong
    /// ETag, so a client's cached ETag never turns the fault into a 304.
    /// `signers` are the workspace's configuration keys, which `wrong_alg` signs with.
    static func tampered(
        _ configuration: SignedConfiguration, with fault: FaultKind, signers: @autoclosure () -> [NamedSigningKey]
    ) throws(FaultTamperingFailed) -> SignedConfiguration {
        let document: [UInt8]
        switch fault {
        case .badSignature: document = try flippingSignatures(configuration.document)
        case .unknownKeyID: document = try signedByUnknownKey(configuration.document)
        case .wrongAlgorithm: document = try signedUnderWrongAlgorithm(configuration.document, signers: signers())
        default: return configuration
        }
        return SignedConfiguration(
            workspaceKey: configuration.workspaceKey,
            stored: StoredConfigRevision(
                revision: configuration.revision, contentHash: [], issuedAt: configuration.issuedAt,
                document: document))
    }

    /// The same document with one byte of every signature flipped: still 64 bytes of well-formed base64url
    /// under the right `kid`, so a verifier gets as far as the signature check and fails there.
    private static func flippingSignatures(_ document: [UInt8]) throws(FaultTamperingFailed) -> [UInt8] {
        guard var root = try? JSONParser().parse(document).objectValue,
            let entries = root["signatures"]?.arrayValue
        else { throw failure("the served configuration is not a JWS document") }
        let flipped: [JSONValue] = entries.map { entry in
            guard var object = entry.objectValue, let encoded = object["signature"]?.stringValue,
                var signature = Base64.urlDecode(encoded), let last = signature.indices.last
            else { return entry }
            signature[last] ^= 0x01
            object.set("signature", .string(Base64.urlEncode(signature)))
            return .object(object)
        }
        root.set("signatures", .array(flipped))
        return JSONValue.object(root).serialized()
    }

    /// The same payload, validly signed, but by a throwaway key under `unknownKeyID`.
    private static func signedByUnknownKey(_ document: [UInt8]) throws(FaultTamperingFailed) -> [UInt8] {
        guard let encoded = (try? JSONParser().parse(document))?["payload"]?.stringValue,
            let payload = Base64.urlDecode(encoded)
        else { throw failure("the served configuration is not a JWS document") }
        do {
            let throwaway = NamedSigningKey(kid: unknownKeyID, key: try P256SigningKey.generate())
            return try JWSSigner.general(payload: payload, type: .configuration, signers: [throwaway])
        } catch {
            throw failure("signing with a throwaway key failed: \(error)")
        }
    }

    /// The algorithm the `wrong_alg` fault names in its protected headers: a real JOSE algorithm (RFC 7518
    /// §3.1), so that only a verifier that checks `alg` against the contract's ES256 refuses it.
    static let wrongAlgorithm = "ES384"

    /// The same payload signed (ES256, R‖S) by the workspace's own keys under their own `kid`s, but with
    /// protected headers that say `"alg":"ES384"`: a verifier that takes the algorithm for granted finds every
    /// signature good; the contract (§2, RFC 8725 §3.1) says to refuse it.
    private static func signedUnderWrongAlgorithm(
        _ document: [UInt8], signers: [NamedSigningKey]
    ) throws(FaultTamperingFailed) -> [UInt8] {
        guard let encoded = (try? JSONParser().parse(document))?["payload"]?.stringValue else {
            throw failure("the served configuration is not a JWS document")
        }
        guard !signers.isEmpty else { throw failure("the workspace has no configuration key to sign with") }
        var entries: [JSONValue] = []
        for signer in signers {
            let header =
                "{\"alg\":\"\(wrongAlgorithm)\",\"kid\":\(JSONText.quoted(signer.kid)),"
                + "\"typ\":\"\(JOSEType.configuration.rawValue)\"}"
            let protected = Base64.urlEncode(Array(header.utf8))
            do {
                let signature = try signer.key.signature(for: Array((protected + "." + encoded).utf8))
                entries.append(["protected": .string(protected), "signature": .string(Base64.urlEncode(signature))])
            } catch {
                throw failure("signing with \(signer.kid) failed: \(error)")
            }
        }
        return JSONValue.object(["payload": .string(encoded), "signatures": .array(entries)]).serialized()
    }

    private static func failure(_ reason: String) -> FaultTamperingFailed { FaultTamperingFailed(reason: reason) }
}

/// A configuration fault that could not be built (the served document was not a JWS, or signing failed).
struct FaultTamperingFailed: Error {
    let reason: String
}
