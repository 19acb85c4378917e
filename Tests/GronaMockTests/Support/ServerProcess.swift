import Foundation
import GronaMockTestSupport

/// A `grona-mock serve` child process: started, its start line read, stopped with a signal.
final class ServerProcess {
    let process = Process()
    private let out = Pipe()
    private let err = Pipe()
    private(set) var url = ""

    /// `descriptorLimit` starts the server under `ulimit -n` of that many open files.
    init(
        _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
        descriptorLimit: Int? = nil
    ) throws {
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments =
                ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", BinaryRunner.executable.path] + arguments
        } else {
            process.executableURL = BinaryRunner.executable
            process.arguments = arguments
        }
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = out
        process.standardError = err
        try process.run()
        url = try readStartLine()
    }

    /// Waits (up to 10 s) for "… listening on <url>" and returns the URL.
    private func readStartLine() throws -> String {
        let handle = out.fileHandleForReading
        var line = Data()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { break }
            if byte == Data([0x0A]) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "http://") else {
            process.terminate()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw RawClient.Failure(description: "no start line; stdout: \(text); stderr: \(stderr)")
        }
        return String(text[range.lowerBound...])
    }

    var port: Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

    /// Sends `signal` and waits for the exit status (nil when it did not exit within `seconds`).
    func stop(signal: Int32 = SIGTERM, within seconds: Double = 5) -> Int32? {
        kill(process.processIdentifier, signal)
        _ = eventually(seconds: seconds) { !process.isRunning }
        if process.isRunning {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    var standardError: String {
        String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
