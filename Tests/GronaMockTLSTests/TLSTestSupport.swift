import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTLS
import GronaMockTestSupport

/// A CA and a server certificate for 127.0.0.1, ::1 and localhost, made for one test in its own temporary
/// directory (removed with it), and a client context that trusts that CA alone.
final class TestCertificates {
    let root: URL
    let directory: TLSDirectory
    let client: ClientTLSContext

    init(names: [String] = []) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("grona-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        directory = TLSDirectory(root.appendingPathComponent("tls").path)
        _ = try LocalAuthority.initialize(
            directory, names: try names.map { try SubjectName(parsing: $0) }, machineNames: false)
        client = try ClientTLSContext(caFile: directory.authorityCertificate)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var caFile: String { directory.authorityCertificate }

    /// An HTTPS listener on a free port, checking its files for changes every `checkInterval`.
    func listener(checkInterval: Duration = .milliseconds(50), logger: Logger = .silent) throws -> HTTPServer.Listener {
        .layered(port: 0, transport: try tlsListener(checkInterval: checkInterval, logger: logger))
    }

    /// The transport of `listener`, for tests that look at it or hold its reloads (`beforeReloading`).
    func tlsListener(
        checkInterval: Duration = .milliseconds(50), logger: Logger = .silent,
        beforeReloading: (@Sendable () -> Void)? = nil
    ) throws -> TLSListener {
        try TLSListener(
            certificateFile: directory.serverCertificate, keyFile: directory.serverKey, checkInterval: checkInterval,
            logger: logger, beforeReloading: beforeReloading)
    }
}

/// The live-test configuration (port 0, two loops, short timeouts) on `backend`, serving HTTPS only, or
/// HTTPS and then plain HTTP.
func tlsConfiguration(
    _ backend: PollerBackend, _ certificates: TestCertificates, plainToo: Bool = false
) throws -> HTTPServer.Configuration {
    var configuration = testServerConfiguration()
    configuration.pollerBackend = backend
    configuration.listeners = [try certificates.listener()] + (plainToo ? [.plain(port: 0)] : [])
    return configuration
}

extension HTTPServer {
    /// The port of the first HTTPS listener.
    var tlsPort: Int { listeners.first { $0.scheme == "https" }?.port ?? 0 }
}

/// What a command printed and how it ended.
struct ToolRun {
    var status: Int32
    var output: String
    var error: String
    var all: String { output + error }
}

/// Runs an external tool (curl, python3, openssl) with `input` on its standard input, killed after `seconds`.
func runTool(_ arguments: [String], input: String = "", seconds: Double = 20) throws -> ToolRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    let standardInput = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = standardInput
    try process.run()
    standardInput.fileHandleForWriting.write(Data(input.utf8))
    try? standardInput.fileHandleForWriting.close()
    // Read while it runs, so that a full pipe never blocks it.
    let collected = Collected()
    let readers = DispatchGroup()
    for (pipe, isError) in [(output, false), (error, true)] {
        readers.enter()
        DispatchQueue.global().async {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            collected.set(String(decoding: data, as: UTF8.self), isError: isError)
            readers.leave()
        }
    }
    if !eventually(seconds: seconds, { !process.isRunning }) { process.terminate() }
    process.waitUntilExit()
    _ = readers.wait(timeout: .now() + 5)
    return ToolRun(status: process.terminationStatus, output: collected.output, error: collected.error)
}

private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var texts = ["", ""]
    func set(_ text: String, isError: Bool) { lock.withLock { texts[isError ? 1 : 0] = text } }
    var output: String { lock.withLock { texts[0] } }
    var error: String { lock.withLock { texts[1] } }
}

/// A certificate from another CA, which clients that trust ours must refuse.
func otherAuthority() throws -> TestCertificates { try TestCertificates() }

/// The `grona-mock` binary SwiftPM built beside the test bundle.
var gronaMockExecutable: String {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let beside = products.appendingPathComponent("grona-mock")
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
    return products.deletingLastPathComponent().appendingPathComponent("grona-mock").path
}

/// Runs `grona-mock ARGUMENTS` to its end, with `environment` as its whole environment (and PATH).
func grona(_ arguments: [String], environment: [String: String] = [:]) throws -> ToolRun {
    let settings = (["PATH=/usr/bin:/bin"] + environment.map { "\($0.key)=\($0.value)" })
    return try runTool(["-i"] + settings + [gronaMockExecutable] + arguments)
}
