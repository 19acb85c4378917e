import GronaMockJSON

/// The configuration faults (contract §4, §8): a served document that an SDK must refuse, each for one exact
/// reason, built from the real revision so that everything else about it is right.
enum ConfigFaults {
    /// A key id that no workspace's `configKeys` can hold: the SDK has no key for it.
    static let unknownKeyID = "grona-mock-fault-unknown-kid"

    /// The revision as the fault serves it; other actions leave it as it is. The result has its own strong
    /// ETag, so a client's cached ETag never turns the fault into a 304.
    static func tampered(
        _ configuration: SignedConfiguration, with fault: FaultKind
    ) throws(FaultTamperingFailed) -> SignedConfiguration {
        let document: [UInt8]
        switch fault {
        case .badSignature: document = try flippingSignatures(configuration.document)
        case .unknownKeyID: document = try signedByUnknownKey(configuration.document)
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

    private static func failure(_ reason: String) -> FaultTamperingFailed { FaultTamperingFailed(reason: reason) }
}

/// A configuration fault that could not be built (the served document was not a JWS, or signing failed).
struct FaultTamperingFailed: Error {
    let reason: String
}
