#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every POSIX socket call of the server lives in this file. A `Socket` owns its descriptor and closes it once,
/// in `close()` or at the latest in `deinit`.
final class Socket: @unchecked Sendable {
    private(set) var descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    func close() {
        guard descriptor >= 0 else { return }
        _ = systemClose(descriptor)
        descriptor = -1
    }

    /// A listening TCP socket on `host` (an IPv4 address) and `port` (0: the system picks one).
    static func listen(host: String, port: UInt16, backlog: Int32 = 128) throws(SocketError) -> Socket {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SocketError("socket", errno) }
        let listener = Socket(descriptor: descriptor)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw SocketError("\(host) is not an IPv4 address", 0)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw SocketError("bind \(host):\(port)", errno) }
        guard systemListen(descriptor, backlog) == 0 else { throw SocketError("listen", errno) }
        return listener
    }

    /// The port the socket is bound to.
    var localPort: UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return result == 0 ? UInt16(bigEndian: address.sin_port) : 0
    }

    /// The next connection; nil when accept failed (the listener was closed, or a transient error).
    func accept() -> Socket? {
        let connection = systemAccept(descriptor, nil, nil)
        return connection >= 0 ? Socket(descriptor: connection) : nil
    }

    /// Reads and writes time out after `seconds`, so a client that stops sending cannot hold a thread forever;
    /// small writes go at once (`TCP_NODELAY`).
    func configureConnection(timeoutSeconds: Int) {
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Up to `capacity` bytes; empty at the end of the stream, nil on an error or a timeout.
    func read(capacity: Int = 64 << 10) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return Array(buffer.prefix(count)) }
            if errno == EINTR { continue }
            return nil
        }
    }

    /// Writes all of `bytes`; false when the peer went away or the write timed out. Never raises SIGPIPE.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(descriptor, $0.baseAddress.map { $0 + offset }, bytes.count - offset, Self.sendFlags)
            }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Closes after an early answer (a 413 before the body was read): stops sending, then reads and discards
    /// what the client still sends, for at most a second and `limit` bytes, so that its unread bytes do not
    /// turn the close into a reset that destroys the answer before the client reads it (RFC 9112 §9.6).
    func lingeringClose(limit: Int = 2 << 20) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var drained = 0
        while drained < limit, let bytes = read(), !bytes.isEmpty { drained += bytes.count }
        close()
    }

    /// Stops both directions, so that a thread blocked in `accept` or `recv` on this socket returns.
    func shutdownBoth() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif
}

/// A failed socket call, with its errno's text.
public struct SocketError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ operation: String, _ code: Int32) {
        description = code == 0 ? operation : "\(operation): \(String(cString: strerror(code)))"
    }
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

private func systemAccept(
    _ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?
) -> Int32 {
    accept(descriptor, address, length)
}

/// libc's `close`, `accept` and `listen`, whose names the methods above shadow.
private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
    listen(descriptor, backlog)
}
