import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP server on 127.0.0.1 that answers each request it reads with the next scripted reply, exactly as
/// written (so a test can send a chunked body, stop in the middle of one, or never answer), on its own thread.
final class ScriptedServer: @unchecked Sendable {
    enum Reply {
        /// Send these bytes and keep the connection.
        case send(String)
        /// Send these bytes, then close the connection.
        case sendAndClose(String)
        /// Read the request and say nothing until the connection is closed by the client.
        case silence
    }

    let port: Int
    private let listener: LoopbackListener
    private let replies: [Reply]
    private let lock = NSLock()
    private var next = 0

    init(_ replies: [Reply]) throws {
        self.replies = replies
        listener = try LoopbackListener(backlog: 16)
        port = listener.port
        listener.start { [self] fd in serve(fd) }
    }

    func stop() { listener.stop() }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var buffer: [UInt8] = []
        while readRequest(fd, &buffer) {
            let reply: Reply? = lock.withLock {
                guard !listener.isStopped, next < replies.count else { return nil }
                defer { next += 1 }
                return replies[next]
            }
            switch reply {
            case .send(let text): write(fd, text)
            case .sendAndClose(let text):
                write(fd, text)
                return
            case .silence:
                var byte: UInt8 = 0
                _ = recv(fd, &byte, 1, 0)
                return
            case nil: return
            }
        }
    }

    /// Reads one request (head and Content-Length body); false at the end of the connection.
    private func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).lowercased()
                let length =
                    head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if buffer.count >= end.upperBound + length {
                    buffer.removeFirst(end.upperBound + length)
                    return true
                }
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return false }
            buffer += chunk[..<count]
        }
    }

    private func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}
