import Foundation
import GronaMock
import GronaMockJSON
import GronaMockTestSupport
import Testing

/// Ctrl-C during `grona-mock load`, as a user presses it: the built binary, a real SIGINT. The first stops
/// the visits, sends what is pending and prints the report (exit 130); a second quits at once.
@Suite("grona-mock load: Ctrl-C", .serialized)
struct LoadInterruptTests {
    /// The binary running in the background, its output collected as it comes.
    final class Running: @unchecked Sendable {
        let process = Process()
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()

        init(_ arguments: [String]) throws {
            process.executableURL = BinaryRunner.executable
            process.arguments = arguments
            process.environment = ["PATH": "/usr/bin:/bin"]
            let outPipe = Pipe()
            let errPipe = Pipe()
            process.standardOutput = outPipe
            process.standardError = errPipe
            outPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                self?.lock.withLock { self?.out.append(data) }
            }
            errPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                self?.lock.withLock { self?.err.append(data) }
            }
            try process.run()
        }

        var stdout: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
        var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

        func signal(_ number: Int32) { kill(process.processIdentifier, number) }

        /// The exit status once it exits within `seconds`; nil (and killed) otherwise.
        func exitStatus(within seconds: Double) -> Int32? {
            guard eventually(seconds: seconds, { !process.isRunning }) else {
                process.terminate()
                return nil
            }
            // The pipes' last bytes.
            _ = eventually(seconds: 2) { stderr.contains("\n") || !stdout.isEmpty }
            return process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
        }
    }

    static func start(_ port: Int, json: String? = nil) throws -> Running {
        try Running(
            [
                "load", "--url", "http://127.0.0.1:\(port)", "--workspace", "shop", "--installs", "10", "--rate", "40",
                "--duration", "10m", "--batch-size", "10", "--batch-age", "200ms", "--seed", "7",
            ] + (json.map { ["--json", $0] } ?? []))
    }

    @Test(
        "the first SIGINT (or SIGQUIT, Ctrl-\\) drains, prints the report of what ran and exits 130",
        arguments: [SIGINT, SIGQUIT])
    func firstInterrupt(signal: Int32) throws {
        let fixture = try MockFixture.standard()
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("load-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: json) }
        try fixture.withServer { server in
            let load = try Self.start(server.port, json: json.path)
            // The first progress line (every 5 s in a pipe): visits have run and batches are out.
            #expect(eventually(seconds: 20) { load.stderr.contains("in flight") }, "stderr: \(load.stderr)")
            load.signal(signal)
            let status = load.exitStatus(within: 20)
            #expect(status == 130, "stdout: \(load.stdout)\nstderr: \(load.stderr)")
            #expect(load.stderr.contains("interrupted"))
            #expect(!load.stderr.contains("Program crashed"), "no crash report: \(load.stderr)")
            #expect(load.stdout.contains("result"), "the report: \(load.stdout)")
            let report = try JSONParser().parse(Array(try Data(contentsOf: json)))
            #expect(report["interrupted"]?.boolValue == true, "the JSON report is written too, and says so")
        }
    }

    @Test("a second SIGINT during the drain exits 130 at once, without a report")
    func secondInterrupt() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            // Answers to batches held back far longer than the drain after Ctrl-C.
            let fault = #"{"endpoint": "events", "kind": "delay", "delayMs": 30000, "count": 1000}"#
            #expect(try fetch(server.port, Control.request("POST", "/_mock/faults", body: fault)).status == 201)
            let load = try Self.start(server.port)
            // The first progress line (every 5 s in a pipe): visits have run and batches are out.
            #expect(eventually(seconds: 20) { load.stderr.contains("in flight") }, "stderr: \(load.stderr)")
            load.signal(SIGINT)
            #expect(eventually { load.stderr.contains("interrupt again") }, "stderr: \(load.stderr)")
            load.signal(SIGINT)
            let status = load.exitStatus(within: 20)
            #expect(status == 130, "stdout: \(load.stdout)\nstderr: \(load.stderr)")
            #expect(!load.stdout.contains("result"), "no report after the second: \(load.stdout)")
        }
    }
}
