import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening socket on 127.0.0.1 on a port the kernel picks, whose accept thread hands each connection to a
/// thread of its own: the scripted, hostile and flooding servers of these tests each own one.
final class LoopbackListener: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var stopped = false

    init(backlog: Int32) throws {
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
        guard bound, listen(fd, backlog) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts connections until `stop()`, each served by `serve` on a thread of its own.
    func start(_ serve: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else {
                    close(fd)
                    return
                }
                Thread.detachNewThread { serve(connection) }
            }
        }
    }

    var isStopped: Bool { lock.withLock { stopped } }

    func stop() {
        lock.withLock { stopped = true }
        // Shut down, not closed: the accept thread closes it as it leaves. Closed here, its number could be
        // reused by another test's socket before that thread (perhaps not yet started) called accept on it,
        // and it would take that test's connections (parallel tests saw .closed or another's replies).
        shutdown(fd, Int32(SHUT_RDWR))
    }
}
