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
    private let listener: Int32
    private let prefix: [UInt8]
    private let unit: [UInt8]
    private let lock = NSLock()
    private var stopped = false

    init(prefix: String, unit: String) throws {
        self.prefix = Array(prefix.utf8)
        // Many units per send, so that the flood is fast.
        self.unit = Array(String(repeating: unit, count: max(1, 16_384 / max(1, unit.utf8.count))).utf8)
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func stop() {
        lock.withLock { stopped = true }
        // Shut down, not closed: the accept thread closes it as it leaves. Closed here, its number could be
        // reused by another test's socket before that thread (perhaps not yet started) called accept on it,
        // and it would take that test's connections (parallel tests saw .closed or another's replies).
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                close(listener)
                return
            }
            Thread.detachNewThread { [self] in serve(fd) }
        }
    }

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
        while !isStopped, write(fd, unit) {}
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
