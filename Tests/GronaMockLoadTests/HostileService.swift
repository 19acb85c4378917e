import Foundation
import GronaMock

@testable import GronaMockLoad

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A service under test that is not grona-mock, on 127.0.0.1: it serves a JWKS and a configuration signed
/// with a key of its own, and answers every other request as `handler` says (nil closes the connection), so
/// that a test can make it lie. Keep-alive; each connection on its own thread.
final class HostileService: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        var body: [UInt8]
    }

    /// An answer that never ends: its head, then its unit over and over until the client goes away.
    enum EndlessAnswer: String, Sendable, CaseIterable {
        /// Chunks of 16 KiB for ever.
        case chunked
        /// A terabyte claimed, and bytes fed for as long as they are read.
        case hugeLength
        /// A body framed by the end of the connection, which never comes.
        case untilClose

        var head: String {
            switch self {
            case .chunked: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            case .hugeLength: "HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n"
            case .untilClose: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"
            }
        }

        var unit: String {
            let filler = String(repeating: "x", count: 0x4000)
            return self == .chunked ? "4000\r\n" + filler + "\r\n" : filler
        }
    }

    let port: Int
    let workspace = "hostile-w"
    private let listener: LoopbackListener
    private let handler: @Sendable (Request) -> [UInt8]?
    private let jwks: [UInt8]
    private let config: [UInt8]
    /// With an endless answer, the run's first configuration is answered as it should be, and every request
    /// after it (configurations, grants, events) with the endless answer.
    private let endless: EndlessAnswer?
    private let lock = NSLock()
    private var configsServed = 0

    /// A live campaign on the home screen's top placement, so that visits log events.
    static let payload =
        "{\"schemaVersion\":1,\"workspaceKey\":\"hostile-w\",\"revision\":1,\"issuedAt\":1800000000,"
        + "\"settings\":{\"maxComponentsPerScreen\":3},\"campaigns\":[{\"id\":\"c1\",\"status\":\"live\","
        + "\"placement\":\"home_top\",\"priority\":1,\"assignment\":{\"unit\":\"install\",\"salt\":\"s\"},"
        + "\"variants\":[{\"id\":\"v1\",\"weight\":10000,\"component\":{\"type\":\"banner\"}}]}]}"

    /// `key` signs the configuration (as kid `h1`); a test that signs grants too passes its own.
    init(
        payload: String = HostileService.payload, key: P256SigningKey? = nil, endless: EndlessAnswer? = nil,
        _ handler: @escaping @Sendable (Request) -> [UInt8]? = { _ in nil }
    ) throws {
        self.handler = handler
        self.endless = endless
        let key = try key ?? P256SigningKey.generate()
        jwks = Array(JWK.set([JWK(kid: "h1", publicKey: key.publicKey)]).utf8)
        config = try JWSSigner.general(
            payload: Array(payload.utf8), type: .configuration, signers: [NamedSigningKey(kid: "h1", key: key)])
        listener = try LoopbackListener(backlog: 64)
        port = listener.port
        listener.start { [self] fd in serve(fd) }
    }

    func stop() { listener.stop() }

    /// Settings for a short run against this service: 10 installs, 50 visits a second for a second, batches
    /// of 5 sent uncompressed within 100 ms.
    func settings(tag: String) -> LoadSettings {
        var settings = LoadSettings()
        settings.port = port
        settings.workspace = workspace
        settings.installs = 10
        settings.rate = 50
        settings.duration = .seconds(1)
        settings.seed = 21
        settings.batchSize = 5
        settings.batchAge = .milliseconds(100)
        settings.retryBase = .milliseconds(5)
        settings.timeout = .seconds(5)
        settings.gzip = false
        settings.runTag = tag
        settings.drainLimit = .seconds(10)
        return settings
    }

    static func response(_ status: Int, _ body: String, headers: String = "") -> [UInt8] {
        Array("HTTP/1.1 \(status) X\r\n\(headers)Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
    }

    /// The event ids of a batch sent with `--no-gzip`.
    static func eventIDs(_ body: [UInt8]) -> [String] {
        let text = String(decoding: body, as: UTF8.self)
        return text.components(separatedBy: "{\"eventID\":\"").dropFirst().compactMap {
            $0.split(separator: "\"", maxSplits: 1).first.map(String.init)
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var buffer: [UInt8] = []
        while let request = readRequest(fd, &buffer) {
            if listener.isStopped { return }
            let reply: [UInt8]?
            if request.path.hasSuffix("/jwks.json") {
                reply = Self.response(200, String(decoding: jwks, as: UTF8.self))
            } else if let endless, !request.path.hasSuffix("/config") || !servesFirstConfig() {
                guard write(fd, Array(endless.head.utf8)) else { return }
                let unit = Array(endless.unit.utf8)
                while !listener.isStopped, write(fd, unit) {}
                return
            } else if request.path.hasSuffix("/config") {
                reply = Self.response(
                    200, String(decoding: config, as: UTF8.self),
                    headers: "ETag: \"c1\"\r\nCache-Control: max-age=60\r\n")
            } else {
                reply = handler(request)
            }
            guard let reply, write(fd, reply) else { return }
        }
    }

    /// True for the first configuration request only.
    private func servesFirstConfig() -> Bool {
        lock.withLock {
            configsServed += 1
            return configsServed == 1
        }
    }

    private func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                let lines = head.components(separatedBy: "\r\n")
                let parts = lines.first?.split(separator: " ") ?? []
                let length =
                    lines.first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if parts.count >= 2, buffer.count >= end.upperBound + length {
                    let body = Array(buffer[end.upperBound..<(end.upperBound + length)])
                    buffer.removeFirst(end.upperBound + length)
                    return Request(method: String(parts[0]), path: String(parts[1]), body: body)
                }
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
