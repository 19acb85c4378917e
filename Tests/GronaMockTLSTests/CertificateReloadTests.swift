import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTLS
import GronaMockTestSupport
import Testing

/// A certificate reissued while the server runs is served to new connections; a bad new pair keeps the old
/// one serving, with a log line saying why.
@Suite("Certificate reload")
struct CertificateReloadTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    /// A live server on `certificates`' TLS listener, its log lines gathered in `lines`; `adjust` changes the
    /// test configuration first.
    static func withServer(
        _ certificates: TestCertificates, _ lines: Lines, adjust: (inout HTTPServer.Configuration) -> Void = { _ in },
        _ body: (HTTPServer) throws -> Void
    ) throws {
        var configuration = testServerConfiguration()
        adjust(&configuration)
        configuration.listeners = [try certificates.listener(logger: Logger { lines.append($0) })]
        try withLiveServer(configuration, body)
    }

    /// The serial of the certificate a new connection is served.
    static func servedSerial(_ port: Int, _ certificates: TestCertificates) throws -> String? {
        try RawClient(port: port, tls: certificates.client).serverCertificateSerial
    }

    static func fileSerial(_ path: String) throws -> String {
        let run = try runTool(["openssl", "x509", "-in", path, "-noout", "-serial"])
        return run.output.replacingOccurrences(of: "serial=", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "tls init run again while serving: new connections get the new certificate, open ones go on",
        arguments: PollerBackend.allCases)
    func reissued(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        let lines = Lines()
        let adjust = { (configuration: inout HTTPServer.Configuration) in
            configuration.pollerBackend = backend
            // The connection opened first sends its request only after the reissue and the checks, which run
            // openssl: over the test configuration's 400 ms for a request head on a slow or busy machine.
            configuration.idleTimeout = .seconds(30)
            configuration.headerTimeout = .seconds(30)
        }
        try Self.withServer(certificates, lines, adjust: adjust) { server in
            let first = try Self.fileSerial(certificates.directory.serverCertificate)
            let open = try RawClient(port: server.tlsPort, tls: certificates.client)
            #expect(open.serverCertificateSerial == first)

            _ = try LocalAuthority.initialize(certificates.directory, names: [], machineNames: false)
            let second = try Self.fileSerial(certificates.directory.serverCertificate)
            #expect(second != first)
            #expect(try eventually { try Self.servedSerial(server.tlsPort, certificates) == second })
            #expect(lines.all.contains { $0.contains("TLS certificate reloaded") })
            // The connection opened before keeps working.
            try open.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try open.readResponse().status == 200)
        }
    }

    @Test("a bad new certificate or a key that does not match keeps the previous certificate serving, and says why")
    func badReplacementKeepsTheOld() throws {
        let certificates = try TestCertificates()
        let other = try TestCertificates()
        let lines = Lines()
        try Self.withServer(certificates, lines) { server in
            let serving = try Self.fileSerial(certificates.directory.serverCertificate)
            let directory = certificates.directory
            // Not a certificate at all.
            try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: directory.serverCertificate))
            #expect(
                try eventually {
                    try Self.servedSerial(server.tlsPort, certificates) == serving
                        && lines.all.contains { $0.contains("TLS certificate not reloaded") }
                })
            // A valid certificate whose key is another's.
            try FileManager.default.removeItem(atPath: directory.serverCertificate)
            try FileManager.default.copyItem(
                atPath: other.directory.serverCertificate, toPath: directory.serverCertificate)
            #expect(
                try eventually {
                    try Self.servedSerial(server.tlsPort, certificates) == serving
                        && lines.all.filter { $0.contains("TLS certificate not reloaded") }.count >= 2
                })
            let last = lines.all.last { $0.contains("not reloaded") } ?? ""
            #expect(last.contains("key values mismatch"), "\(last)")
            #expect(try Self.servedSerial(server.tlsPort, certificates) == serving)
        }
    }

    /// OpenSSL opening a FIFO would wait for a writer, and the watching thread with it (a server that could
    /// not stop); a huge file would be read whole.
    @Test("a FIFO, a directory or a huge file in place of the certificate is refused at once; the old one serves")
    func specialFilesKeepTheOld() throws {
        let certificates = try TestCertificates()
        let lines = Lines()
        try Self.withServer(certificates, lines) { server in
            let serving = try Self.fileSerial(certificates.directory.serverCertificate)
            let path = certificates.directory.serverCertificate
            func refusals(_ reason: String) -> Int {
                lines.all.filter { $0.contains("TLS certificate not reloaded") && $0.contains(reason) }.count
            }
            try FileManager.default.removeItem(atPath: path)
            #expect(mkfifo(path, 0o600) == 0)
            // A thread stuck opening the FIFO goes on once a writer opens it: a failing run ends instead of hanging.
            defer {
                let writer = open(path, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
            }
            #expect(
                try eventually {
                    try Self.servedSerial(server.tlsPort, certificates) == serving
                        && refusals("not a regular file") == 1
                })
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            #expect(
                try eventually {
                    try Self.servedSerial(server.tlsPort, certificates) == serving
                        && refusals("not a regular file") == 2
                })
            try FileManager.default.removeItem(atPath: path)
            try Data(repeating: 0x41, count: 4 * 1024 * 1024).write(to: URL(fileURLWithPath: path))
            #expect(
                try eventually {
                    try Self.servedSerial(server.tlsPort, certificates) == serving && refusals("larger than") == 1
                })
        }
    }

    /// The accept path only reads the current certificate: a reload (a slow disk, a long chain) runs beside the
    /// loops, and the connections arriving meanwhile get the previous certificate at once.
    @Test("a connection arriving while a changed certificate is being loaded is served the previous one at once")
    func servedDuringReload() throws {
        let certificates = try TestCertificates()
        let reload = Gate()
        let tls = try certificates.tlsListener(beforeReloading: { reload.pass() })
        var configuration = testServerConfiguration()
        configuration.listeners = [.layered(port: 0, transport: tls)]
        try withLiveServer(configuration) { server in
            // Opened before the server stops, pass or fail: a reload held forever would hold the stop too.
            defer { reload.open() }
            let first = try Self.fileSerial(certificates.directory.serverCertificate)
            _ = try LocalAuthority.initialize(certificates.directory, names: [], machineNames: false)
            let second = try Self.fileSerial(certificates.directory.serverCertificate)
            // Connections go on arriving while the change settles: were the reload made for one of them, it
            // would be held here with it.
            var entered = false
            #expect(
                eventually {
                    _ = try? RawClient(port: server.tlsPort, tls: certificates.client, timeout: 2)
                    entered = entered || reload.waitForEntry(seconds: 0.02)
                    return entered
                })
            #expect(try Self.servedSerial(server.tlsPort, certificates) == first)
            reload.open()
            #expect(try eventually { try Self.servedSerial(server.tlsPort, certificates) == second })
        }
    }

    @Test("the thread that watches the files runs only while a server serves the listener")
    func watcherStopsWithTheServer() throws {
        let certificates = try TestCertificates()
        let tls = try certificates.tlsListener()
        #expect(!tls.isWatching)
        for _ in 0..<3 {
            var configuration = testServerConfiguration()
            configuration.listeners = [.layered(port: 0, transport: tls)]
            try withLiveServer(configuration) { server throws in
                #expect(tls.isWatching)
                #expect(try Self.servedSerial(server.tlsPort, certificates) != nil)
            }
            #expect(!tls.isWatching)
        }
    }
}
