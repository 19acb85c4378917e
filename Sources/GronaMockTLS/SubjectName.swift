import GronaMockTLSCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One name a server certificate answers to (a subjectAltName entry, RFC 5280 §4.2.1.6).
package enum SubjectName: Hashable, Sendable, CustomStringConvertible {
    case dns(String)
    case ip(IPAddress)

    /// An IP address when `text` is one, else a DNS name, which must be letters, digits, hyphens and dots
    /// (RFC 1123), 253 characters at most, and not end in an all-digit label: no top-level domain is one
    /// (RFC 3696 §2), and URL parsers read such a host as an IPv4 address (WHATWG URL), so `10.0.0.300` is a
    /// mistyped address, not a name to certify and add to the CA's permitted names.
    package init(parsing text: String) throws(TLSError) {
        if let address = IPAddress(text) {
            self = .ip(address)
            return
        }
        let name = text.lowercased()
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid =
            !name.isEmpty && name.utf8.count <= 253
            && labels.allSatisfy { label in
                !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.utf8.allSatisfy { $0 == 0x2D || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }
            }
        guard valid, labels.last?.utf8.allSatisfy({ (0x30...0x39).contains($0) }) == false else {
            throw TLSError(
                "\"\(text.prefix(80))\" is neither an IP address nor a DNS name (letters, digits, - and .)"
                    + Self.hint(for: text))
        }
        self = .dns(name)
    }

    /// What to write instead, for the near misses people type.
    private static func hint(for text: String) -> String {
        if text.contains("*") {
            return "; wildcard certificates are not issued: name each host with its own --name"
        }
        if text.unicodeScalars.contains(where: { !$0.isASCII }) {
            return "; give an internationalized name in its ASCII (xn--) form"
        }
        if text.allSatisfy({ $0.isNumber || $0 == "." }) { return "; an IPv4 address has four numbers up to 255" }
        return ""
    }

    package var description: String {
        switch self {
        case .dns(let name): name
        case .ip(let address): address.text
        }
    }

    /// The entry in OpenSSL's configuration syntax.
    var alternativeName: String {
        switch self {
        case .dns(let name): "DNS:\(name)"
        case .ip(let address): "IP:\(address.text)"
        }
    }
}

/// An IPv4 or IPv6 address, as its bytes and its canonical text.
package struct IPAddress: Hashable, Sendable {
    package let bytes: [UInt8]
    package let text: String

    package init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
        self.text = Self.format(bytes) ?? text
    }

    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16, let text = Self.format(bytes) else { return nil }
        self.bytes = bytes
        self.text = text
    }

    private static func format(_ bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, bytes, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// An address block, for the CA's name constraints (RFC 5280 §4.2.1.10: an address and a mask).
struct IPRange: Sendable {
    let network: IPAddress
    let prefix: Int

    init?(_ network: String, prefix: Int) {
        guard let address = IPAddress(network), (0...address.bytes.count * 8).contains(prefix) else { return nil }
        self.network = address
        self.prefix = prefix
    }

    /// One address alone (/32 or /128).
    init(single address: IPAddress) {
        network = address
        prefix = address.bytes.count * 8
    }

    private var mask: [UInt8] {
        (0..<network.bytes.count).map { index in
            let bits = min(8, max(0, prefix - index * 8))
            return bits == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }
    }

    func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        return zip(zip(address.bytes, network.bytes), mask).allSatisfy { pair, mask in
            pair.0 & mask == pair.1 & mask
        }
    }

    /// `IP:10.0.0.0/255.0.0.0`, the form OpenSSL's nameConstraints syntax takes.
    var constraint: String {
        let maskText = IPAddress(bytes: mask)?.text ?? ""
        return "IP:\(network.text)/\(maskText)"
    }
}
