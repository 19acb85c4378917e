import GronaMockCOpenSSL

/// Text forms of certificate fields, shared with the TLS session (a peer's serial).
package enum CertificateText {
    package static func serialHex(_ certificate: OpaquePointer) -> String? {
        guard let number = ASN1_INTEGER_to_BN(X509_get_serialNumber(certificate), nil) else { return nil }
        defer { BN_free(number) }
        guard let text = BN_bn2hex(number) else { return nil }
        defer { CRYPTO_free(text, nil, 0) }
        return String(cString: text)
    }
}
