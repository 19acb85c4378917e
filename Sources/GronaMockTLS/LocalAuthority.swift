import GronaMockPlatform
import GronaMockTLSCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of a local certificate authority and its server certificate, in one directory.
package struct TLSDirectory: Sendable {
    package let path: String

    package init(_ path: String) { self.path = path }

    /// `~/.grona-mock/tls`: one CA per user, trusted once per device whatever checkout serves; `./tls` when
    /// there is no home directory (a container).
    package static func defaultPath(environment: [String: String]) -> String {
        guard let home = environment["HOME"], !home.isEmpty else { return "./tls" }
        return home + "/.grona-mock/tls"
    }

    package var authorityCertificate: String { path + "/ca.pem" }
    package var authorityCertificateDER: String { path + "/ca.der" }
    /// Written 0600 and never read but to sign the server certificate.
    package var authorityKey: String { path + "/ca-key.pem" }
    package var serverCertificate: String { path + "/server.pem" }
    package var serverKey: String { path + "/server-key.pem" }
}

/// `grona-mock tls init` and `tls trust`: makes (or keeps) the CA, issues the server certificate, exports the
/// CA for devices.
package enum LocalAuthority {
    package struct Issued: Sendable {
        /// False when an existing CA was kept (devices that trust it need nothing new).
        package let authorityCreated: Bool
        /// The mode of a kept CA key that other users could read (it is 0600 now), in octal; nil when it
        /// was private. Whoever could read it could sign for every name the CA permits.
        package let exposedKeyMode: String?
        package let names: [SubjectName]
        package let authorityFingerprint: String
        package let serverSerial: String
        package let serverLifetimeDays: Int
    }

    /// Makes the CA unless one exists (or `replacingAuthority`), then issues a new server certificate for
    /// the fixed names, `names`, and, with `machineNames`, this machine's host name and LAN addresses.
    package static func initialize(
        _ directory: TLSDirectory, names: [SubjectName], machineNames: Bool = true, replacingAuthority: Bool = false
    ) throws(TLSError) -> Issued {
        var all = CertificateProfile.fixedNames
        if machineNames {
            all += [MachineNames.hostName()].compactMap { $0 } + MachineNames.lanAddresses().map { .ip($0) }
        }
        for name in names where !all.contains(name) { all.append(name) }

        try makeDirectory(directory.path)
        let exists = FileSystem.exists(directory.authorityKey) && FileSystem.exists(directory.authorityCertificate)
        let authority: (certificate: OwnedCertificate, key: OwnedKeyPair)
        var exposedKeyMode: String?
        if exists && !replacingAuthority {
            exposedKeyMode = try restrictKey(directory.authorityKey)
            authority = (
                try LibX509.certificate(pem: try read(directory.authorityCertificate)),
                try LibX509.key(pem: try read(directory.authorityKey))
            )
        } else {
            let key = try LibX509.generateP256()
            let extensions = CertificateProfile.authorityExtensions(
                dnsNames: all.compactMap { if case .dns(let name) = $0 { name } else { nil } },
                addresses: all.compactMap { if case .ip(let address) = $0 { address } else { nil } })
            let certificate = try LibX509.issue(
                commonName: "grona-mock local CA", organization: CertificateProfile.organization, key: key,
                issuer: nil, lifetimeSeconds: CertificateProfile.authorityLifetimeSeconds, extensions: extensions)
            authority = (certificate, key)
        }

        let serverKey = try LibX509.generateP256()
        let server = try LibX509.issue(
            commonName: "localhost", organization: CertificateProfile.organization, key: serverKey,
            issuer: authority, lifetimeSeconds: CertificateProfile.serverLifetimeSeconds,
            extensions: CertificateProfile.serverExtensions(names: all))
        // The kept CA's name constraints may not cover a name added since (a new --name, a renamed host).
        if let problem = LibX509.chainProblem(server, authority: authority.certificate) {
            throw TLSError(
                "the CA in \(directory.path) cannot sign for \(all.map(\.description).joined(separator: ", ")) "
                    + "(\(problem)); run 'grona-mock tls init --force' for a new CA, then trust it again")
        }

        if !exists || replacingAuthority {
            try writePrivate(try LibX509.pem(authority.key), to: directory.authorityKey, replace: replacingAuthority)
            try writePublic(try LibX509.pem(authority.certificate), to: directory.authorityCertificate)
            try writePublic(try LibX509.der(authority.certificate), to: directory.authorityCertificateDER)
        }
        // Key first, certificate second: a serving mock reloads the pair once both have settled.
        try writePrivate(try LibX509.pem(serverKey), to: directory.serverKey, replace: true)
        try writePublic(try LibX509.pem(server), to: directory.serverCertificate)
        return Issued(
            authorityCreated: !exists || replacingAuthority, exposedKeyMode: exposedKeyMode, names: all,
            authorityFingerprint: LibX509.fingerprint(authority.certificate), serverSerial: LibX509.serialHex(server),
            serverLifetimeDays: CertificateProfile.serverLifetimeSeconds / 86_400)
    }

    /// Writes the CA's DER form beside its PEM (what Android's settings and an iOS profile take) and returns
    /// the CA's SHA-256 fingerprint, for the person to compare with what the device shows.
    package static func export(_ directory: TLSDirectory) throws(TLSError) -> String {
        let certificate = try LibX509.certificate(pem: try read(directory.authorityCertificate))
        try writePublic(try LibX509.der(certificate), to: directory.authorityCertificateDER)
        return LibX509.fingerprint(certificate)
    }

    // MARK: - Files

    private static func read(_ path: String) throws(TLSError) -> [UInt8] {
        do {
            return try FileSystem.read(path, maxBytes: 64 * 1024)
        } catch {
            throw TLSError("cannot read \(path): \(error)")
        }
    }

    private static func writePublic(_ bytes: [UInt8], to path: String) throws(TLSError) {
        do {
            try FileSystem.write(bytes, to: path, mode: 0o644)
        } catch {
            throw TLSError("cannot write \(path): \(error)")
        }
    }

    /// A private key: created 0600 by `open` itself (O_EXCL on a new temporary name, never a chmod after, so
    /// no moment exists when another user could open it), then renamed into place; without `replace`, linked
    /// into place, which fails rather than replace a key that appeared meanwhile.
    private static func writePrivate(_ bytes: [UInt8], to path: String, replace: Bool) throws(TLSError) {
        var random = [UInt8](repeating: 0, count: 6)
        for index in random.indices { random[index] = UInt8.random(in: 0x61...0x7A) }
        let temporary = path + ".tmp-" + String(decoding: random, as: UTF8.self)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw TLSError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { break }
            offset += written
        }
        let complete = offset == bytes.count && fsync(fd) == 0
        close(fd)
        defer { unlink(temporary) }
        guard complete else { throw TLSError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let placed = replace ? rename(temporary, path) : link(temporary, path)
        guard placed == 0 else { throw TLSError("cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    /// Makes a kept key file 0600 again when its group or others may read it (a copy, an archive, a umask
    /// that `tls init` did not choose); returns the mode it had, in octal, or nil when it was private.
    private static func restrictKey(_ path: String) throws(TLSError) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw TLSError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw TLSError("cannot stat \(path): \(String(cString: strerror(errno)))") }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 != 0 else { return nil }
        guard fchmod(fd, 0o600) == 0 else {
            throw TLSError(
                "\(path) may be read by other users (mode \(String(mode, radix: 8))) and cannot be made 0600: "
                    + String(cString: strerror(errno)))
        }
        return String(mode, radix: 8)
    }

    /// Creates `path` and its parents; the directory itself 0700, since it holds the CA key.
    private static func makeDirectory(_ path: String) throws(TLSError) {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            if FileSystem.isDirectory(built) { continue }
            guard mkdir(built, 0o700) == 0 || errno == EEXIST else {
                throw TLSError("cannot create the directory \(built): \(String(cString: strerror(errno)))")
            }
        }
    }
}
