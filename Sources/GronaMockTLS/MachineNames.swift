#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This machine's host name and its LAN addresses, which a phone on the same network uses to reach it.
enum MachineNames {
    /// `gethostname`, lower-cased; nil when it is not a usable DNS name (or is `localhost`).
    static func hostName() -> SubjectName? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let parsed = try? SubjectName(parsing: name), case .dns(let dns) = parsed, dns != "localhost" else {
            return nil
        }
        return parsed
    }

    /// The addresses of the interfaces that are up, in the private blocks the CA permits (RFC 1918, IPv6
    /// unique-local) and not loopback or link-local (a link-local address needs its zone, which no URL in an
    /// app carries). A public address can be named with `--name`.
    static func lanAddresses() -> [IPAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [IPAddress] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, entry.pointee.ifa_flags & UInt32(IFF_UP) != 0,
                entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0
            else { continue }
            let bytes: [UInt8]
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                }
            case AF_INET6:
                bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
            default:
                continue
            }
            guard let ip = IPAddress(bytes: bytes), !found.contains(ip) else { continue }
            let isLinkLocal = IPRange("fe80::", prefix: 10)?.contains(ip) ?? false
            let isPrivate = CertificateProfile.privateRanges.contains { $0.contains(ip) }
            if isPrivate && !isLinkLocal { found.append(ip) }
        }
        return found
    }
}
