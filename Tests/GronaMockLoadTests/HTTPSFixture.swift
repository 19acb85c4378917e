import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockTLS
import GronaMockTLSCore

@testable import GronaMockLoad

/// A grona-mock in this process serving HTTPS only, on `host`:0, with a local CA of its own made by
/// `LocalAuthority` (as `grona-mock tls init`: a certificate for 127.0.0.1, ::1 and localhost) in a temporary
/// directory, the committed workspaces and keys, and a database of its own. `stop()` always runs.
final class HTTPSFixture {
    let server: GronaMockServer
    let directory: URL
    let tls: TLSDirectory
    let host: String

    init(host: String = "127.0.0.1") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("grona-https-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        tls = TLSDirectory(directory.appendingPathComponent("tls").path)
        _ = try LocalAuthority.initialize(tls, names: [], machineNames: false)
        var configuration = GronaMockConfiguration(
            workspacesDirectory: LoadFixture.repository.appendingPathComponent("workspaces").path,
            keysDirectory: LoadFixture.repository.appendingPathComponent("keys").path,
            storage: .sqlite(path: directory.appendingPathComponent("grona-mock.sqlite").path),
            reloadInterval: .seconds(60))
        configuration.http.host = host
        let listener = try TLSListener(certificateFile: tls.serverCertificate, keyFile: tls.serverKey, logger: .silent)
        configuration.http.listeners = [.layered(port: 0, transport: listener)]
        configuration.http.eventLoops = 1
        self.host = host
        server = try GronaMockServer.start(configuration, logger: .silent)
    }

    func stop() {
        server.shutdown()
        server.wait()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The CA certificate, as `--cacert` takes it.
    var caFile: String { tls.authorityCertificate }

    /// `LoadFixture`'s short run, against this server over HTTPS, trusting `caFile` (nil: the system store).
    func settings(tag: String, caFile: String?) throws -> LoadSettings {
        var settings = LoadFixture.shortRun(tag: tag)
        settings.host = host
        settings.port = server.port
        settings.tls = try LoadSettings.tlsContext(url: "https://\(host)", caFile: caFile)
        return settings
    }
}
