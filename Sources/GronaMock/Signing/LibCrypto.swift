import GronaMockCOpenSSL
import GronaMockPlatform

/// Every call into libcrypto lives in this file: P-256 keys, ECDSA over SHA-256, the DER and raw signature
/// forms, SHA-256 and random bytes. Types above it own no C pointers but through `OwnedKey`, and no C type
/// leaves the module.

/// A failed libcrypto operation, with OpenSSL's reason for it. Never carries key material.
package struct CryptoError: Error, Sendable, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }

    /// The error OpenSSL queued for `operation`, taking and clearing its whole queue (so one failure is
    /// never reported against the next call).
    static func openSSL(_ operation: String) -> CryptoError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return CryptoError(reasons.isEmpty ? "\(operation) failed" : "\(operation) failed: \(reasons[0])")
    }
}

/// An `EVP_PKEY` owned by Swift: freed when the last reference goes.
///
/// OpenSSL 3 lets one key be used for signing and verifying from several threads at once as long as
/// nobody modifies it, and nothing here does after creation: hence `@unchecked Sendable`.
final class OwnedKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Signing contexts already initialised for this key, reused across signatures: creating and
    /// initialising an `EVP_PKEY_CTX` costs OpenSSL 3 about as much as the signature itself. Each is used
    /// by one thread at a time, taken from and returned to this pool.
    private let signingContexts = Mutex<[PooledContext]>([])

    /// An `EVP_PKEY_CTX` in the pool; only ever used by the one thread that took it out.
    private struct PooledContext: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
        signingContexts.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context.pointer) }
        }
    }

    /// A context ready for `EVP_PKEY_sign`, from the pool or new.
    func takeSigningContext() throws(CryptoError) -> OpaquePointer {
        if let context = signingContexts.withLock({ $0.popLast() }) { return context.pointer }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            throw CryptoError.openSSL("creating a signing context")
        }
        guard EVP_PKEY_sign_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw CryptoError.openSSL("starting the signature")
        }
        return context
    }

    func returnSigningContext(_ context: OpaquePointer) {
        let pooled = PooledContext(pointer: context)
        signingContexts.withLock { $0.append(pooled) }
    }
}

enum LibCrypto {
    /// DER prefix of a P-256 SubjectPublicKeyInfo with an uncompressed point (RFC 5480): what follows is
    /// 0x04 ‖ X ‖ Y. Its base64 is the `MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE` every SDK key starts with.
    static let p256SPKIPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
        0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    // MARK: - Keys

    /// A private key from PEM (PKCS#8 `BEGIN PRIVATE KEY`, or SEC1 `BEGIN EC PRIVATE KEY`), which must be P-256.
    static func privateKey(pem: [UInt8]) throws(CryptoError) -> OwnedKey {
        ERR_clear_error()
        let key: OpaquePointer? = pem.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw CryptoError.openSSL("reading the PEM private key") }
        let owned = OwnedKey(key)
        try requireP256(owned)
        return owned
    }

    /// A public key from SubjectPublicKeyInfo DER, which must be P-256.
    static func publicKey(spki: [UInt8]) throws(CryptoError) -> OwnedKey {
        ERR_clear_error()
        let key: OpaquePointer? = spki.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            let parsed = d2i_PUBKEY(nil, &cursor, buffer.count)
            // Trailing bytes after the structure mean the input was not one SPKI.
            if let parsed, cursor != buffer.baseAddress.map({ $0 + buffer.count }) {
                EVP_PKEY_free(parsed)
                return nil
            }
            return parsed
        }
        guard let key else { throw CryptoError.openSSL("reading the SubjectPublicKeyInfo") }
        let owned = OwnedKey(key)
        try requireP256(owned)
        return owned
    }

    static func generateP256() throws(CryptoError) -> OwnedKey {
        ERR_clear_error()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw CryptoError.openSSL("creating a key generation context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else { throw CryptoError.openSSL("generating a P-256 key") }
        return OwnedKey(key)
    }

    /// The private key as PKCS#8 PEM, unencrypted (`BEGIN PRIVATE KEY`).
    static func pkcs8PEM(_ key: OwnedKey) throws(CryptoError) -> String {
        ERR_clear_error()
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL("allocating a memory BIO") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil) == 1 else {
            throw CryptoError.openSSL("writing the PKCS#8 PEM")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        guard length > 0, let data else { throw CryptoError.openSSL("reading the PEM back") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// The public half as SubjectPublicKeyInfo DER.
    static func spki(_ key: OwnedKey) throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        let length = i2d_PUBKEY(key.pointer, nil)
        guard length > 0 else { throw CryptoError.openSSL("encoding the public key") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(key.pointer, &cursor)
        }
        guard written == length else { throw CryptoError.openSSL("encoding the public key") }
        return der
    }

    private static func requireP256(_ key: OwnedKey) throws(CryptoError) {
        guard EVP_PKEY_get_base_id(key.pointer) == EVP_PKEY_EC else {
            throw CryptoError("the key is not an elliptic-curve key (ES256 needs P-256)")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key.pointer, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length) == 1
        else { throw CryptoError.openSSL("reading the key's curve") }
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" || curve == "P-256" else {
            throw CryptoError("the key is on curve \(curve), not P-256 (ES256 needs P-256)")
        }
    }

    // MARK: - ECDSA P-256 with SHA-256

    /// A DER-encoded ECDSA signature over SHA-256(message), as OpenSSL makes it: the digest first, then
    /// ECDSA over the digest with a pooled context (what `EVP_DigestSign` does, without its per-call setup).
    static func signDER(_ message: UnsafeRawBufferPointer, with key: OwnedKey) throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        let digest = sha256(message)
        let context = try key.takeSigningContext()
        // An ECDSA P-256 DER signature is at most 72 bytes.
        var signature = [UInt8](repeating: 0, count: 80)
        var length = signature.count
        guard EVP_PKEY_sign(context, &signature, &length, digest, digest.count) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw CryptoError.openSSL("signing")
        }
        key.returnSigningContext(context)
        return Array(signature.prefix(length))
    }

    /// Whether `der` is a valid signature of `message` under `key`. A malformed signature is simply invalid.
    static func verifyDER(_ der: [UInt8], message: UnsafeRawBufferPointer, key: OwnedKey) -> Bool {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message.baseAddress, message.count) == 1
    }

    /// DER `ECDSA-Sig-Value` to the JOSE form R ‖ S, each left-padded to 32 bytes (RFC 7518 §3.4).
    static func rawSignature(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError.openSSL("decoding the DER signature") }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let padded = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard padded else { throw CryptoError("the signature's R or S does not fit 32 bytes") }
        return raw
    }

    /// R ‖ S (exactly 64 bytes) to DER, for OpenSSL's verifier; nil for any other length.
    static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 else { return nil }
        defer { ERR_clear_error() }
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let (r, s) = raw.withUnsafeBufferPointer { buffer in
            (BN_bin2bn(buffer.baseAddress, 32, nil), BN_bin2bn(buffer.baseAddress.map { $0 + 32 }, 32, nil))
        }
        guard let r, let s else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }

    // MARK: - Digest and randomness

    /// SHA-256, fetched once: `EVP_sha256()` makes OpenSSL 3 look the implementation up on every call.
    nonisolated(unsafe) private static let sha256Algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let status = EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, sha256Algorithm ?? EVP_sha256(), nil)
        precondition(status == 1 && length == 32, "SHA-256 cannot fail on valid input")
        return digest
    }

    /// Cryptographically random bytes, for grant ids.
    static func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw CryptoError.openSSL("drawing random bytes") }
        return bytes
    }

    /// The linked OpenSSL's version text, for `--version`.
    static var version: String { String(cString: OpenSSL_version(Int32(OPENSSL_VERSION))) }
}
