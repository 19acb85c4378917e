/// A P-256 private key for ES256 signatures, loaded from `keys/<kid>.pem` or generated.
package struct P256SigningKey: Sendable {
    let key: OwnedKey
    package let publicKey: P256PublicKey

    /// From PEM text: PKCS#8 (`BEGIN PRIVATE KEY`, the form `keys/` uses) or SEC1. Errors never quote the PEM.
    package init(pem: String) throws(CryptoError) {
        key = try LibCrypto.privateKey(pem: Array(pem.utf8))
        publicKey = try P256PublicKey(key: key)
    }

    private init(key: OwnedKey) throws(CryptoError) {
        self.key = key
        publicKey = try P256PublicKey(key: key)
    }

    /// A fresh random key.
    package static func generate() throws(CryptoError) -> P256SigningKey {
        try P256SigningKey(key: LibCrypto.generateP256())
    }

    /// The key as unencrypted PKCS#8 PEM, for writing to `keys/<kid>.pem`.
    package func pkcs8PEM() throws(CryptoError) -> String {
        try LibCrypto.pkcs8PEM(key)
    }

    /// The ES256 signature of `message` in the JOSE form: R ‖ S, 64 bytes (RFC 7518 §3.4).
    package func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let der = message.withUnsafeBytes { bytes in
            Result { () throws(CryptoError) in try LibCrypto.signDER(bytes, with: key) }
        }
        return try LibCrypto.rawSignature(fromDER: der.get())
    }
}

/// The public half of a P-256 key, in the forms verifiers take it.
package struct P256PublicKey: Sendable, Equatable {
    let key: OwnedKey
    /// SubjectPublicKeyInfo DER, 91 bytes for P-256.
    package let spkiDER: [UInt8]

    init(key: OwnedKey) throws(CryptoError) {
        self.key = key
        spkiDER = try LibCrypto.spki(key)
    }

    /// From SubjectPublicKeyInfo DER, as the SDK's `configKeys` hold it (base64-decoded).
    package init(spkiDER: [UInt8]) throws(CryptoError) {
        try self.init(key: LibCrypto.publicKey(spki: spkiDER))
    }

    /// From the affine coordinates, as a JWK carries them (RFC 7518 §6.2.1): 32 bytes each.
    package init(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard x.count == 32, y.count == 32 else {
            throw CryptoError("a P-256 coordinate must be 32 bytes; got \(x.count) and \(y.count)")
        }
        try self.init(spkiDER: LibCrypto.p256SPKIPrefix + [0x04] + x + y)
    }

    /// base64 of the SPKI DER: the exact string `GronaOptions.configKeys` and `grantKeys` take.
    package var spkiBase64: String { Base64.encode(spkiDER) }

    /// The uncompressed point's coordinates; for P-256 the SPKI ends with 0x04 ‖ X ‖ Y.
    package var x: [UInt8] { Array(spkiDER.suffix(64).prefix(32)) }
    package var y: [UInt8] { Array(spkiDER.suffix(32)) }

    /// Whether `signature` (R ‖ S, exactly 64 bytes) is a valid ES256 signature of `message`.
    package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let der = LibCrypto.derSignature(fromRaw: signature) else { return false }
        return message.withUnsafeBytes { LibCrypto.verifyDER(der, message: $0, key: key) }
    }

    package static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool { lhs.spkiDER == rhs.spkiDER }
}

/// SHA-256, for assignment buckets (contract §5), ETags and JWK thumbprints.
package enum SHA256 {
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { LibCrypto.sha256($0) }
    }

    package static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { LibCrypto.sha256(UnsafeRawBufferPointer($0)) }
    }
}

/// Conversions between the two forms of an ECDSA signature: DER, as OpenSSL and most libraries make it,
/// and R ‖ S, as JOSE requires (RFC 7518 §3.4). For tools and tests that meet both.
package enum ECDSASignatureForm {
    package static func raw(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        try LibCrypto.rawSignature(fromDER: der)
    }

    package static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        LibCrypto.derSignature(fromRaw: raw)
    }
}
