import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP server on 127.0.0.1 that answers every connection's first request with `prefix` and then `unit` over
/// and over until the client goes away (or `stop()`): a response head, trailers or interim answers that never
/// end. Each connection on its own thread.
final class FloodServer: @unchecked Sendable {
    let port: Int
    private let listener: LoopbackListener
    private let prefix: [UInt8]
    private let unit: [UInt8]

    init(prefix: String, unit: String) throws {
        self.prefix = Array(prefix.utf8)
        // Many units per send, so that the flood is fast.
        self.unit = Array(String(repeating: unit, count: max(1, 16_384 / max(1, unit.utf8.count))).utf8)
        listener = try LoopbackListener(backlog: 16)
        port = listener.port
        listener.start { [self] fd in serve(fd) }
    }

    func stop() { listener.stop() }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        // The request's head is enough: the flood does not wait for a body.
        var seen: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while seen.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return }
            seen += chunk[..<count]
        }
        guard write(fd, prefix) else { return }
        while !listener.isStopped, write(fd, unit) {}
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
