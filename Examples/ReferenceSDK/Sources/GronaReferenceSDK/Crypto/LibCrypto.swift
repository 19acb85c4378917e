import GronaReferenceCOpenSSL

/// Every call into libcrypto lives in this file: P-256 public keys from SubjectPublicKeyInfo DER, ES256
/// verification of raw R‖S signatures, and SHA-256. No C type leaves it; `P256PublicKey` owns its `EVP_PKEY`.

/// A P-256 public key, parsed once from the base64 SPKI DER the SDK's options take (contract §2).
///
/// OpenSSL 3 lets one key verify on several threads at once as long as nobody modifies it, and nothing does after
/// creation: hence `@unchecked Sendable`.
public final class P256PublicKey: @unchecked Sendable {
    fileprivate let pointer: OpaquePointer

    /// The key from SubjectPublicKeyInfo DER; nil when it is not exactly one SPKI of a P-256 key.
    public init?(spki: [UInt8]) {
        defer { ERR_clear_error() }
        let parsed: OpaquePointer? = spki.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buffer.count)
            // Trailing bytes mean the input was not one SPKI.
            if let key, cursor != buffer.baseAddress.map({ $0 + buffer.count }) {
                EVP_PKEY_free(key)
                return nil
            }
            return key
        }
        guard let parsed else { return nil }
        pointer = parsed
        guard Self.isP256(parsed) else { return nil }
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    private static func isP256(_ key: OpaquePointer) -> Bool {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return false }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length) == 1
        else { return false }
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return curve == "prime256v1" || curve == "P-256"
    }

    /// Whether `signature` (R‖S, exactly 64 bytes, RFC 7518 §3.4) is a valid ECDSA P-256 SHA-256 signature of
    /// `message`. OpenSSL verifies the DER `ECDSA-Sig-Value`, so R and S are rebuilt into one first; any other
    /// length, and R or S of zero, are simply invalid.
    public func verifiesES256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64, let der = Self.derSignature(fromRaw: signature) else { return false }
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }

    private static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let (r, s) = raw.withUnsafeBufferPointer { buffer in
            (BN_bin2bn(buffer.baseAddress, 32, nil), BN_bin2bn(buffer.baseAddress.map { $0 + 32 }, 32, nil))
        }
        // ECDSA_SIG_set0 takes ownership of both only when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
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
}

/// SHA-256 (FIPS 180-4) through libcrypto's EVP interface.
public enum SHA256 {
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let succeeded = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil) == 1
        ERR_clear_error()
        // SHA-256 of bytes in memory cannot fail short of libcrypto being unusable; an all-zero digest then
        // gives bucket 0, which is a valid (if wrong) answer rather than a crash.
        return succeeded && length == 32 ? digest : [UInt8](repeating: 0, count: 32)
    }
}
