import Foundation
import GronaMockJSON
import GronaMockTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `grona-mock serve --store` child process of the built binary, on the repository's workspaces and
/// keys, as an instance of a cluster runs: started, its start line read, stopped (or killed) by signal.
final class ClusterInstance {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The binary SwiftPM built next to the test bundle.
    static var executable: URL {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = products.appendingPathComponent("grona-mock")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return products.deletingLastPathComponent().appendingPathComponent("grona-mock")
    }

    let process = Process()
    private let out = Pipe()
    private let log: URL
    private(set) var port = 0

    init(store: String) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("grona-cluster-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = Self.executable
        process.arguments = [
            "serve", "--port", "0", "--store", store, "--event-loops", "1",
            "--workspaces", Self.root.appendingPathComponent("workspaces").path,
            "--keys", Self.root.appendingPathComponent("keys").path,
        ]
        process.environment = ["PATH": "/usr/bin:/bin"]
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        port = try readStartLine()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: log)
    }

    /// What the instance logged, for a failure's message.
    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// SIGKILL: no shutdown, nothing flushed; returns once the process is gone.
    func killNow() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM and wait (up to 10 s).
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        _ = eventually(seconds: 10) { !process.isRunning }
        if process.isRunning { killNow() }
    }

    private func readStartLine() throws -> Int {
        let handle = out.fileHandleForReading
        var line = Data()
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let port = text.split(separator: ":").last.flatMap({ Int($0) }) else {
            process.waitUntilExit()
            throw RawClient.Failure(description: "no start line; stdout: \(text); log: \(logText)")
        }
        return port
    }

    // MARK: - Requests

    func get(_ target: String) throws -> RawClient.Response {
        try fetch(port, "GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
    }

    func post(_ target: String, _ body: String = "") throws -> RawClient.Response {
        try fetch(port, Self.post(target, body))
    }

    static func post(_ target: String, _ body: String) -> String {
        "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)"
            + "\r\n\r\n\(body)"
    }

    /// The JSON body of `GET target`.
    func json(_ target: String) throws -> JSONValue {
        try JSONParser().parse(try get(target).body)
    }

    /// Every eventID stored for `workspace`, page by page, as this instance reads them.
    func storedEventIDs(workspace: String) throws -> [String] {
        var stored: [String] = []
        var cursor: String?
        repeat {
            let page = try json(
                "/_mock/events?workspace=\(workspace)&limit=1000" + (cursor.map { "&cursor=\($0)" } ?? ""))
            stored += page["events"]?.arrayValue?.compactMap { $0["eventID"]?.stringValue } ?? []
            cursor = page["nextCursor"]?.stringValue
        } while cursor != nil
        return stored
    }
}

/// Event batches for the repository's `acme-market` workspace.
enum ClusterEvents {
    static func batch(_ ids: [String]) -> String {
        let events = ids.map { id in
            #"{"eventID":"\#(id)","type":"exposure","timestamp":1764478799001,"placement":"home_top","#
                + #""screen":{"type":"home"},"visitID":"v-1","campaignID":"home-hero","variantID":"spring","arm":"treatment"}"#
        }
        return #"{"workspaceKey":"acme-market","installID":"install-1","sdk":{"platform":"ios","version":"1.4.0"},"#
            + #""app":{"id":"com.acme","version":"1.0"},"sentAt":1764478800123,"events":[\#(events.joined(separator: ","))]}"#
    }
}
