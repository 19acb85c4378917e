import Foundation
import GronaMockTLS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP client for live tests: sends exact bytes and reads exact responses, so tests see what a
/// real client sees on the wire (framing, `Connection: close`, the socket closing).
package final class RawClient {
    package struct Response {
        package var status: Int
        package var headers: [(String, String)]
        package var body: [UInt8]

        package func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var isClosed = false
    /// Set by `startTLS`: every read and write then goes through it, so the same checks run over HTTPS.
    private var tls: TLSClientSession?
    /// Over TLS: the stream ended with the server's close_notify, not with a bare close (an incomplete close,
    /// RFC 9112 §9.8), which a reader of a close-delimited body takes as the body cut.
    package private(set) var endedWithCloseNotify = false

    /// Connects to 127.0.0.1:`port`; every read gives up after `timeout` seconds.
    package init(port: Int, timeout: Double = 5) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else {
            isClosed = true
            throw Failure(description: "socket failed")
        }
        #if canImport(Darwin)
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            // Through `closeNow`, which the deinit (it runs after a failed init too, every property being set)
            // then skips: closing here and there closed the number twice, and in between another thread's new
            // descriptor (a test server's listener, once) could have taken it.
            closeNow()
            throw Failure(description: "connect to port \(port) failed: errno \(error)")
        }
        var interval = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { closeNow() }

    /// Connects to 127.0.0.1:`port` and completes a TLS handshake that verifies the server as `host`.
    package convenience init(port: Int, tls context: ClientTLSContext, host: String = "127.0.0.1", timeout: Double = 5)
        throws
    {
        try self.init(port: port, timeout: timeout)
        tls = try context.connect(fd: fd, host: host)
    }

    /// The TLS version and ALPN protocol negotiated, and the server certificate's serial (nil in the clear).
    package var tlsVersion: String? { tls?.version }
    package var alpn: String? { tls?.alpn }
    package var serverCertificateSerial: String? { tls?.peerSerial }

    /// One read: from TLS when started, else the socket. 0 at the end of the stream, negative on an error.
    private func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let tls else { return recv(fd, buffer.baseAddress, buffer.count, 0) }
        do {
            let count = try tls.read(into: buffer)
            if count == 0 { endedWithCloseNotify = true }
            return count
        } catch {
            // A timeout reads as one; any other failure ends the stream, as a reset does.
            errno = error.isTimeout ? EAGAIN : ECONNRESET
            return -1
        }
    }

    /// Closes the socket (a FIN, or a reset when unread bytes remain), as a client that gives up does.
    package func closeNow() {
        guard !isClosed else { return }
        isClosed = true
        close(fd)
    }

    /// Shrinks the receive buffer before a large response, so the server soon finds the socket full.
    package func shrinkReceiveBuffer(to bytes: Int32 = 4096) {
        var size = bytes
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    package func send(_ text: String) throws { try send(Array(text.utf8)) }

    package func send(_ bytes: [UInt8]) throws {
        var offset = 0
        if let tls {
            do {
                try tls.write(bytes)
                return
            } catch {
                throw Failure(description: "TLS send failed: \(error)")
            }
        }
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Self.sendWithoutSignal(fd, $0.baseAddress, $0.count)
            }
            guard sent > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Closes with a reset (SO_LINGER 0) instead of a FIN, as a crashed or killed client would.
    /// The close itself sends the RST; a shutdown first would send a FIN, which is not what a reset is.
    package func reset() {
        guard !isClosed else { return }
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        closeNow()
    }

    /// send(2) that returns EPIPE instead of raising SIGPIPE: MSG_NOSIGNAL on Linux; on Darwin the socket
    /// carries SO_NOSIGPIPE instead, set when it is opened.
    private static func sendWithoutSignal(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.send(fd, bytes, count, Int32(MSG_NOSIGNAL))
        #else
        Darwin.send(fd, bytes, count, 0)
        #endif
    }

    /// Half-closes the sending side, as `curl` does after an upload with `Connection: close`.
    package func finishSending() {
        // Over TLS, close_notify first: the TLS way of saying the same (RFC 8446 §6.1).
        tls?.closeNotify()
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Reads one response; `forHead` reads no body whatever Content-Length says.
    package func readResponse(forHead: Bool = false) throws -> Response {
        let headEnd = try readUntil(Array("\r\n\r\n".utf8))
        let headText = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1", let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(headText)")
        }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: [])
        let length =
            forHead || status == 100 || status == 204 || status == 304
            ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        try fill(length)
        response.body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return response
    }

    /// The rest of a chunked body (RFC 9112 §7.1) after `readResponse(forHead: true)`: the chunks' bytes,
    /// joined; `onChunk` hears each chunk's size as it is read (a slow client waits there).
    package func readChunkedBody(onChunk: (Int) -> Void = { _ in }) throws -> [UInt8] {
        var body: [UInt8] = []
        while let chunk = try readChunk() {
            body += chunk
            onChunk(chunk.count)
        }
        return body
    }

    /// The next chunk of a chunked body (RFC 9112 §7.1) after `readResponse(forHead: true)`, as it arrives;
    /// nil for the last chunk. For a stream that has no end of its own (Server-Sent Events).
    package func readChunk() throws -> [UInt8]? {
        let lineEnd = try readUntil(Array("\r\n".utf8))
        let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self)
        buffer.removeFirst(lineEnd + 2)
        guard let size = Int(sizeText, radix: 16), size >= 0 else {
            throw Failure(description: "bad chunk size \(sizeText)")
        }
        try fill(size + 2)
        guard buffer[size] == 0x0D, buffer[size + 1] == 0x0A else {
            throw Failure(description: "chunk without CRLF")
        }
        let chunk = Array(buffer[..<size])
        buffer.removeFirst(size + 2)
        return size == 0 ? nil : chunk
    }

    /// Everything the server sends until it closes the connection (a reset counts as closing), for what a
    /// response parser cannot show: a connection dropped with no answer, a body cut short. Throws when the
    /// server keeps the connection open past the read timeout.
    package func readUntilClosed() throws -> [UInt8] {
        var received = buffer
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { receive(into: $0) }
            if count == 0 || (count < 0 && errno == ECONNRESET) { return received }
            guard count > 0 else { throw Failure(description: "the server kept the connection open (errno \(errno))") }
            received += chunk[..<count]
        }
    }

    /// True when bytes from the server are waiting, or arrive within `milliseconds`.
    package func hasDataAvailable(waitingMilliseconds milliseconds: Int32) -> Bool {
        guard buffer.isEmpty else { return true }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }

    /// True when the server has closed the connection: a read returns end of stream (or a reset) before
    /// `timeout`, with no bytes left unread.
    package func isClosedByServer() -> Bool {
        guard buffer.isEmpty else { return false }
        var byte: UInt8 = 0
        let count = withUnsafeMutableBytes(of: &byte) { receive(into: $0) }
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        while true {
            if let index = firstIndex(of: marker) { return index }
            try receiveMore()
        }
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count { try receiveMore() }
    }

    private func receiveMore() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { receive(into: $0) }
        guard count > 0 else {
            throw Failure(description: count == 0 ? "connection closed by server" : "recv failed: errno \(errno)")
        }
        buffer += chunk[..<count]
    }

    private func firstIndex(of marker: [UInt8]) -> Int? {
        guard buffer.count >= marker.count else { return nil }
        for start in 0...(buffer.count - marker.count) where buffer[start..<start + marker.count].elementsEqual(marker)
        {
            return start
        }
        return nil
    }
}

extension RawClient.Response {
    /// A response answered in process (`Router.exchange`), in the shape a socket read gives.
    package init(_ response: HTTPResponse) {
        self.init(
            status: response.status.code, headers: response.headers.map { ($0.name, $0.value) }, body: response.body)
    }
}
