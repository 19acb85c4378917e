import GronaMockCOpenSSL
import GronaMockTLSCore

/// Every call that makes, reads or checks an X.509 certificate lives in this file (libcrypto's X509 and
/// X509V3 API): the local CA, the server certificate it signs, their PEM and DER forms, and the chain check.
/// `LibSSL.swift` holds the TLS calls. Policy (which names, which constraints, how long) is decided by
/// `CertificateProfile`; this file only carries it out.

/// An `EVP_PKEY` or an `X509`, freed with the last reference.
final class OwnedKeyPair {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }
}

final class OwnedCertificate {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }
}

/// One X.509 v3 extension as OpenSSL's configuration syntax writes it (`critical,CA:TRUE,pathlen:0`).
struct CertificateExtension {
    enum Kind {
        case basicConstraints, keyUsage, extendedKeyUsage, subjectKeyIdentifier, authorityKeyIdentifier
        case subjectAlternativeName, nameConstraints

        var nid: Int32 {
            switch self {
            case .basicConstraints: NID_basic_constraints
            case .keyUsage: NID_key_usage
            case .extendedKeyUsage: NID_ext_key_usage
            case .subjectKeyIdentifier: NID_subject_key_identifier
            case .authorityKeyIdentifier: NID_authority_key_identifier
            case .subjectAlternativeName: NID_subject_alt_name
            case .nameConstraints: NID_name_constraints
            }
        }
    }

    var kind: Kind
    var value: String
}

enum LibX509 {
    /// A new ECDSA P-256 key.
    static func generateP256() throws(TLSError) -> OwnedKeyPair {
        ERR_clear_error()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw .openSSL("creating a key generation context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else { throw .openSSL("generating a P-256 key") }
        return OwnedKeyPair(key)
    }

    /// Makes and signs a certificate for `key`: self-signed when `issuer` is nil, else signed by the issuer's
    /// key. The serial is 16 random bytes (positive), as CA/Browser Forum practice asks (at least 64 bits).
    static func issue(
        commonName: String, organization: String, key: OwnedKeyPair,
        issuer: (certificate: OwnedCertificate, key: OwnedKeyPair)?, lifetimeSeconds: Int,
        extensions: [CertificateExtension]
    ) throws(TLSError) -> OwnedCertificate {
        ERR_clear_error()
        guard let made = X509_new() else { throw .openSSL("creating a certificate") }
        let certificate = OwnedCertificate(made)
        var serial = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&serial, 16) == 1 else { throw .openSSL("drawing a serial number") }
        serial[0] = (serial[0] & 0x7F) | 0x01
        guard let number = BN_bin2bn(serial, 16, nil) else { throw .openSSL("making the serial number") }
        defer { BN_free(number) }
        // Valid from an hour ago, for a device whose clock is a little behind this machine's.
        guard X509_set_version(made, 2) == 1, BN_to_ASN1_INTEGER(number, X509_get_serialNumber(made)) != nil,
            X509_gmtime_adj(X509_getm_notBefore(made), -3600) != nil,
            X509_gmtime_adj(X509_getm_notAfter(made), lifetimeSeconds - 3600) != nil
        else { throw .openSSL("setting the serial number and validity") }
        guard let name = X509_NAME_new() else { throw .openSSL("creating a name") }
        defer { X509_NAME_free(name) }
        for (field, value) in [("O", organization), ("CN", commonName)] {
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0) == 1 else {
                throw .openSSL("setting the \(field) name")
            }
        }
        let issuerName = issuer.map { X509_get_subject_name($0.certificate.pointer) } ?? name
        guard X509_set_subject_name(made, name) == 1, X509_set_issuer_name(made, issuerName) == 1,
            X509_set_pubkey(made, key.pointer) == 1
        else { throw .openSSL("setting the names and key") }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.certificate.pointer ?? made, made, nil, nil, 0)
        for item in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, item.kind.nid, item.value) else {
                throw .openSSL("adding the extension \(item.value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(made, ext, -1) == 1 else { throw .openSSL("adding the extension \(item.value)") }
        }
        guard X509_sign(made, (issuer?.key ?? key).pointer, EVP_sha256()) > 0 else {
            throw .openSSL("signing the certificate")
        }
        return certificate
    }

    // MARK: - PEM and DER

    static func pem(_ certificate: OwnedCertificate) throws(TLSError) -> [UInt8] {
        try writingToMemory("writing the certificate PEM") { PEM_write_bio_X509($0, certificate.pointer) }
    }

    /// The private key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`), which every TLS server reads.
    static func pem(_ key: OwnedKeyPair) throws(TLSError) -> [UInt8] {
        try writingToMemory("writing the key PEM") {
            PEM_write_bio_PKCS8PrivateKey($0, key.pointer, nil, nil, 0, nil, nil)
        }
    }

    static func der(_ certificate: OwnedCertificate) throws(TLSError) -> [UInt8] {
        let length = i2d_X509(certificate.pointer, nil)
        guard length > 0 else { throw .openSSL("encoding the certificate as DER") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509(certificate.pointer, &cursor)
        }
        guard written == length else { throw .openSSL("encoding the certificate as DER") }
        return der
    }

    static func certificate(pem: [UInt8]) throws(TLSError) -> OwnedCertificate {
        ERR_clear_error()
        let read: OpaquePointer? = readingFromMemory(pem) { PEM_read_bio_X509($0, nil, nil, nil) }
        guard let read else { throw .openSSL("reading the certificate PEM") }
        return OwnedCertificate(read)
    }

    /// Every certificate of a PEM chain, in order (the server's first); fails when there is none. `source`
    /// names the file in the error.
    static func certificateChain(pem: [UInt8], from source: String) throws(TLSError) -> [OwnedCertificate] {
        ERR_clear_error()
        let chain: [OwnedCertificate] = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else { return [] }
            defer { BIO_free(bio) }
            var chain: [OwnedCertificate] = []
            while let next = PEM_read_bio_X509(bio, nil, nil, nil) { chain.append(OwnedCertificate(next)) }
            return chain
        }
        guard !chain.isEmpty else { throw .openSSL("reading the certificate \(source)") }
        // The read that found no further certificate queued "no start line": not an error for a chain.
        ERR_clear_error()
        return chain
    }

    static func key(pem: [UInt8], from source: String = "PEM") throws(TLSError) -> OwnedKeyPair {
        ERR_clear_error()
        let read: OpaquePointer? = readingFromMemory(pem) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
        guard let read else { throw .openSSL("reading the key \(source)") }
        return OwnedKeyPair(read)
    }

    private static func writingToMemory(
        _ operation: String, _ write: (OpaquePointer) -> Int32
    ) throws(TLSError) -> [UInt8] {
        ERR_clear_error()
        guard let bio = BIO_new(BIO_s_mem()) else { throw .openSSL("allocating a memory BIO") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw .openSSL(operation) }
        var data: UnsafeMutablePointer<CChar>?
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        guard length > 0, let data else { throw .openSSL(operation) }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    private static func readingFromMemory(_ bytes: [UInt8], _ read: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer?
    {
        bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
    }

    // MARK: - Checks and descriptions

    /// Why `leaf` does not chain to `authority` as a TLS server certificate (signature, validity, key usage,
    /// name constraints: RFC 5280 §6), or nil when it does.
    static func chainProblem(_ leaf: OwnedCertificate, authority: OwnedCertificate) -> String? {
        guard let store = X509_STORE_new() else { return "cannot allocate a certificate store" }
        defer { X509_STORE_free(store) }
        guard let context = X509_STORE_CTX_new() else { return "cannot allocate a verification context" }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_add_cert(store, authority.pointer) == 1,
            X509_STORE_CTX_init(context, store, leaf.pointer, nil) == 1
        else { return TLSError.openSSL("checking the chain").description }
        X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER)
        defer { ERR_clear_error() }
        if X509_verify_cert(context) == 1 { return nil }
        return String(cString: X509_verify_cert_error_string(Int(X509_STORE_CTX_get_error(context))))
    }

    /// The SHA-256 fingerprint as colon-separated hex, as Keychain Access and `openssl x509 -fingerprint` show.
    static func fingerprint(_ certificate: OwnedCertificate) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard X509_digest(certificate.pointer, EVP_sha256(), &digest, &length) == 1 else { return "unknown" }
        return digest.prefix(Int(length)).map { hex($0) }.joined(separator: ":")
    }

    static func serialHex(_ certificate: OwnedCertificate) -> String {
        CertificateText.serialHex(certificate.pointer) ?? "unknown"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
