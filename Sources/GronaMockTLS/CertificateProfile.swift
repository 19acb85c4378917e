/// What the local CA and its server certificate contain, and why (docs/tls.md has the same, for people).
///
/// Devices trust a user-installed CA only for certificates that meet their rules: Apple's for iOS 13 and
/// macOS 10.15 on (https://support.apple.com/en-us/103769: a subjectAltName with every name, the serverAuth
/// extended key usage, a validity of 825 days or fewer, SHA-2 signatures, keys of 2048-bit RSA or ECC), which
/// are also what Android and browsers accept. The 398-day limit applies to CAs in Apple's root program, not to
/// user-added ones (https://support.apple.com/en-us/102028).
enum CertificateProfile {
    /// 824 days from issue (plus the hour the certificate is back-dated): under Apple's 825.
    static let serverLifetimeSeconds = 824 * 86_400
    /// The CA lives long: trusting it on every device is the costly step, so it should not need redoing.
    static let authorityLifetimeSeconds = 3_650 * 86_400
    static let organization = "grona-mock local development"

    /// The address blocks the CA may sign for: loopback, private IPv4 (RFC 1918, which holds the Android
    /// emulator's 10.0.2.2 for the host), unique-local and link-local IPv6. Any other address named at `init`
    /// is added alone.
    static let privateRanges: [IPRange] = [
        IPRange("127.0.0.0", prefix: 8), IPRange("::1", prefix: 128), IPRange("10.0.0.0", prefix: 8),
        IPRange("172.16.0.0", prefix: 12), IPRange("192.168.0.0", prefix: 16), IPRange("fc00::", prefix: 7),
        IPRange("fe80::", prefix: 10),
    ].compactMap { $0 }

    /// The DNS names the CA may sign for, and every name below them (RFC 5280 §4.2.1.10): `localhost`,
    /// mDNS's `local`, and the names given.
    static let baseDomains = ["localhost", "local"]

    /// A CA that can sign certificates for local names only, so that trusting it on a device cannot let it
    /// vouch for a bank's site if its key ever leaked. Name constraints are critical: a client that cannot
    /// check them must refuse the CA.
    static func authorityExtensions(dnsNames: [String], addresses: [IPAddress]) -> [CertificateExtension] {
        var permitted = baseDomains
        for name in dnsNames where !permitted.contains(where: { covers($0, name) }) { permitted.append(name) }
        var ranges = privateRanges
        for address in addresses where !ranges.contains(where: { $0.contains(address) }) {
            ranges.append(IPRange(single: address))
        }
        let constraints =
            permitted.map { "permitted;DNS:\($0)" } + ranges.map { "permitted;\($0.constraint)" }
        return [
            CertificateExtension(kind: .basicConstraints, value: "critical,CA:TRUE,pathlen:0"),
            CertificateExtension(kind: .keyUsage, value: "critical,keyCertSign,cRLSign"),
            CertificateExtension(kind: .subjectKeyIdentifier, value: "hash"),
            CertificateExtension(kind: .nameConstraints, value: "critical," + constraints.joined(separator: ",")),
        ]
    }

    static func serverExtensions(names: [SubjectName]) -> [CertificateExtension] {
        [
            CertificateExtension(kind: .basicConstraints, value: "critical,CA:FALSE"),
            CertificateExtension(kind: .keyUsage, value: "critical,digitalSignature"),
            CertificateExtension(kind: .extendedKeyUsage, value: "serverAuth"),
            CertificateExtension(kind: .subjectKeyIdentifier, value: "hash"),
            CertificateExtension(kind: .authorityKeyIdentifier, value: "keyid:always"),
            CertificateExtension(
                kind: .subjectAlternativeName, value: names.map(\.alternativeName).joined(separator: ",")),
        ]
    }

    /// Whether the DNS constraint `domain` permits `name` (the name itself, or a name below it).
    static func covers(_ domain: String, _ name: String) -> Bool {
        name == domain || name.hasSuffix("." + domain)
    }

    /// Names every server certificate carries: loopback by name and address, and the Android emulator's
    /// address for its host (https://developer.android.com/studio/run/emulator-networking).
    static let fixedNames: [SubjectName] = ["localhost", "127.0.0.1", "::1", "10.0.2.2"].compactMap {
        try? SubjectName(parsing: $0)
    }
}
