import Foundation

/// Runs the built `grona-mock` binary, as a user would, and captures what it prints.
package struct BinaryRunner {
    package struct Result {
        package var status: Int32
        package var stdout: String
        package var stderr: String
    }

    /// The binary SwiftPM built next to the test bundle.
    package static var executable: URL { product("grona-mock") }

    /// An executable product SwiftPM built next to the test bundle (the build tool a plugin runs is one).
    package static func product(_ name: String) -> URL {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = products.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        // On Linux the test runner may live inside the .xctest directory.
        return products.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Runs to completion with `arguments` and `environment` added to a minimal environment.
    package static func run(
        _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil, executable: URL = executable
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read stdout to its end first: the commands write a few lines to stderr at most, so its pipe cannot
        // fill and block the child meanwhile.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
