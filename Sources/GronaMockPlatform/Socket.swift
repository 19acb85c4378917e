#if canImport(Glibc)
import Glibc
import GronaMockCLinux
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX socket calls the server makes, so that the event loop and connections read
/// as intent rather than casts.
package enum Socket {
    /// Creates a non-blocking listening socket bound to `host:port` (port 0 picks a free one) and returns it
    /// with the port it got.
    package static func listen(host: String, port: Int, backlog: Int32 = 1024) throws(SystemError) -> (Int32, Int) {
        try withStreamSocket(host: host, port: String(port), passive: true) { fd, info throws(SystemError) in
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else {
                throw SystemError.last("bind(\(host):\(port))")
            }
            guard systemListen(fd, backlog) == 0 else { throw SystemError.last("listen") }
            try setNonBlocking(fd)
            return (fd, try localPort(fd))
        }
    }

    /// A blocking socket connected to `host:port`, whose reads and writes give up after `timeoutSeconds`:
    /// for the command line's small client calls, never for an event loop.
    package static func connect(host: String, port: String, timeoutSeconds: Int) throws(SystemError) -> Int32 {
        try withStreamSocket(host: host, port: port, passive: false) { fd, info throws(SystemError) in
            var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard systemConnect(fd, info.ai_addr, info.ai_addrlen) == 0 else {
                throw SystemError.last("connect(\(host):\(port))")
            }
            return fd
        }
    }

    /// Resolves `host:port`, makes a close-on-exec stream socket for its first address and hands both to
    /// `body`; the socket is closed when `body` throws.
    static func withStreamSocket<T>(
        host: String, port: String, passive: Bool, _ body: (Int32, addrinfo) throws(SystemError) -> T
    ) throws(SystemError) -> T {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = passive ? AI_PASSIVE | AI_NUMERICSERV : AI_NUMERICSERV
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, port, &hints, &list)
        guard status == 0, let first = list else {
            if status == EAI_SYSTEM { throw SystemError("getaddrinfo(\(host))", errno: lastErrno()) }
            throw SystemError(call: "resolving \(host)", reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }

        let info = first.pointee
        // Close-on-exec, so that a process spawned meanwhile (a test running the binary) does not hold the
        // port after shutdown; atomic on Linux, set just after on macOS, which has no SOCK_CLOEXEC.
        #if canImport(Glibc)
        let fd = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
        #else
        let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        #endif
        guard fd >= 0 else { throw SystemError.last("socket") }
        do throws(SystemError) {
            #if canImport(Darwin)
            try setCloseOnExec(fd)
            #endif
            return try body(fd, info)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Accepts one pending connection, non-blocking with close-on-exec; nil when none is waiting.
    package static func accept(_ listener: Int32) throws(SystemError) -> (fd: Int32, peer: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                #if canImport(Glibc)
                grona_accept4(listener, address, &length, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
                #else
                Darwin.accept(listener, address, &length)
                #endif
            }
        }
        guard fd >= 0 else {
            let error = lastErrno()
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR || error == ECONNABORTED { return nil }
            throw SystemError("accept", errno: error)
        }
        #if canImport(Darwin)
        // No accept4: the flags it would set come after. A blocking socket would stall the whole loop on its
        // first read, so one that cannot be made non-blocking is not served.
        do throws(SystemError) {
            try setNonBlocking(fd)
            try setCloseOnExec(fd)
        } catch {
            close(fd)
            throw error
        }
        try? setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
        // Nagle's algorithm meeting delayed ACKs costs a flat 40 ms per response: small responses go now.
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return (fd, describe(storage))
    }

    package static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(SystemError) {
        var value = value
        guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw SystemError.last("setsockopt")
        }
    }

    package static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw SystemError.last("fcntl") }
    }

    package static func setCloseOnExec(_ fd: Int32) throws(SystemError) {
        guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { throw SystemError.last("fcntl") }
    }

    /// Sends the buffers in order with one call, never raising SIGPIPE; returns the bytes sent, 0 when the
    /// socket would block.
    package static func send(_ fd: Int32, _ buffers: inout [iovec]) throws(SystemError) -> Int {
        var message = msghdr()
        let sent = buffers.withUnsafeMutableBufferPointer { vectors in
            message.msg_iov = vectors.baseAddress
            #if canImport(Glibc)
            message.msg_iovlen = vectors.count
            return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            #else
            message.msg_iovlen = Int32(vectors.count)
            return sendmsg(fd, &message, 0)
            #endif
        }
        guard sent >= 0 else {
            let error = lastErrno()
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return 0 }
            throw SystemError("sendmsg", errno: error)
        }
        return sent
    }

    /// Reads into `buffer`; returns the count, 0 at end of stream, nil when it would block.
    package static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        try received(recv(fd, buffer.baseAddress, buffer.count, 0), by: "recv")
    }

    /// What a read returned: the count, or nil when it would have blocked (or was interrupted); other errors
    /// are thrown, named after `call`.
    private static func received(_ count: Int, by call: String) throws(SystemError) -> Int? {
        guard count >= 0 else {
            let error = lastErrno()
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return nil }
            throw SystemError(call, errno: error)
        }
        return count
    }

    /// `receive`, and when the kernel took in the last bytes read, as CLOCK_REALTIME nanoseconds (`arrival`; 0
    /// when the read carried no stamp). Stamps come only after `enableReceiveTimestamps`, and only on Linux.
    package static func receive(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, arrival: inout Int64
    ) throws(SystemError) -> Int? {
        #if canImport(Glibc)
        var stamp: Int64 = 0
        let count = grona_receive_stamped(fd, buffer.baseAddress, UInt(buffer.count), &stamp)
        arrival = stamp
        return try received(count, by: "recvmsg")
        #else
        arrival = 0
        return try receive(fd, into: buffer)
        #endif
    }

    /// Asks for the kernel's receive stamps on `fd` (Linux only; best effort: without them `arrival` stays 0).
    package static func enableReceiveTimestamps(_ fd: Int32) {
        #if canImport(Glibc)
        _ = grona_enable_receive_timestamps(fd)
        #endif
    }

    /// Best-effort write of a short canned answer to a socket about to be closed (refusals, errors).
    package static func sendNow(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            #if canImport(Glibc)
            _ = Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            #else
            _ = Darwin.send(fd, raw.baseAddress, raw.count, 0)
            #endif
        }
    }

    package static func localPort(_ fd: Int32) throws(SystemError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw SystemError.last("getsockname") }
        return port(of: storage)
    }

    private static func port(of storage: sockaddr_storage) -> Int {
        var storage = storage
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            switch family {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            default: 0
            }
        }
    }

    /// This end of a connected socket as a URL authority, `address:port` (IPv6 in brackets): the address the
    /// client reached, for messages that tell it which URL to use instead.
    package static func localAuthority(_ fd: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        let described = describe(storage)
        guard Int32(storage.ss_family) == AF_INET6, let colon = described.lastIndex(of: ":") else { return described }
        return "[\(described[..<colon])]\(described[colon...])"
    }

    /// The peer as `address:port`, for the access log.
    private static func describe(_ storage: sockaddr_storage) -> String {
        var storage = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard status == 0 else { return "unknown" }
        let address = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(address):\(port(of: storage))"
    }

    package static func lastErrno() -> Int32 {
        #if canImport(Glibc)
        Glibc.errno
        #else
        Darwin.errno
        #endif
    }
}

#if canImport(Glibc)
private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(fd, backlog) }
func systemConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
    Glibc.connect(fd, address, length)
}
#else
private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(fd, backlog) }
func systemConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
    Darwin.connect(fd, address, length)
}
#endif
