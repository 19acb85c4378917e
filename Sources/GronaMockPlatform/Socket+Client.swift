#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client side of `Socket` for a single-threaded poll loop (the load generator): a connect that does not
/// block, and sends that report "would block" instead of waiting.
extension Socket {
    /// A non-blocking, close-on-exec socket with `TCP_NODELAY` whose connection to `host:port` has started;
    /// it is established when the socket turns writable and `pendingError` says 0 (connect(2), EINPROGRESS).
    package static func startConnect(host: String, port: String) throws(SystemError) -> Int32 {
        try withStreamSocket(host: host, port: port, passive: false) { fd, info throws(SystemError) in
            try setNonBlocking(fd)
            #if canImport(Darwin)
            try? setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
            #endif
            // Small requests go at once: Nagle's algorithm meeting delayed ACKs costs 40 ms a request.
            try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            if systemConnect(fd, info.ai_addr, info.ai_addrlen) != 0 {
                let error = lastErrno()
                guard error == EINPROGRESS || error == EINTR else {
                    throw SystemError("connect(\(host):\(port))", errno: error)
                }
            }
            return fd
        }
    }

    /// The error a non-blocking connect ended with (`SO_ERROR`); 0 when it succeeded.
    package static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return lastErrno() }
        return value
    }

    /// Sends what it can of `bytes` without raising SIGPIPE; returns the count sent, 0 when it would block.
    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        #if canImport(Glibc)
        let sent = Glibc.send(fd, base, bytes.count, Int32(MSG_NOSIGNAL))
        #else
        let sent = Darwin.send(fd, base, bytes.count, 0)
        #endif
        guard sent >= 0 else {
            let error = lastErrno()
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return 0 }
            throw SystemError("send", errno: error)
        }
        return sent
    }

    /// Closes a descriptor this process owns.
    package static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }
}
