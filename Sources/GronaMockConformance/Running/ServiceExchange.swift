import GronaMockJSON
import GronaMockLoad
import GronaMockPlatform

/// One blocking HTTP/1.1 exchange with the test service: a connection per request (`Connection: close`), the
/// answer read with the load generator's response parser (`Content-Length`, chunks or the end of the stream),
/// every read and write held to a timeout. A test service is a small program on loopback; what matters here is
/// that a wrong or silent one gives a clear failure, never a hang.
struct ServiceExchange {
    struct Answer {
        let status: Int
        let body: [UInt8]

        var json: JSONValue? { body.isEmpty ? nil : try? JSONParser().parse(body) }
        /// The body for a person: its text, cut at 2000 characters.
        var text: String {
            let text = String(decoding: body.prefix(2000), as: UTF8.self)
            return body.count > 2000 ? text + "…" : text
        }
    }

    /// Why the service could not be asked: it is not there, it did not answer in time, or it did not speak
    /// HTTP.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let host: String
    let port: Int
    let timeoutSeconds: Int

    /// `http://HOST:PORT` with an optional trailing slash; nil for anything else.
    init?(url: String, timeoutSeconds: Int) {
        guard url.hasPrefix("http://") else { return nil }
        var authority = url.dropFirst("http://".count)
        while authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.contains("/"), let colon = authority.lastIndex(of: ":"),
            let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port)
        else { return nil }
        var host = String(authority[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.host = host
        self.port = port
        self.timeoutSeconds = timeoutSeconds
    }

    func request(_ method: String, _ path: String, json: JSONValue? = nil) throws(Failure) -> Answer {
        let body = json?.serialized() ?? []
        var head =
            "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\nAccept: application/json\r\n"
        if json != nil { head += "Content-Type: application/json\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let fd: Int32
        do {
            fd = try Socket.connect(host: host, port: String(port), timeoutSeconds: timeoutSeconds)
        } catch {
            throw Failure(description: "cannot connect to the test service at \(host):\(port): \(error)")
        }
        defer { Socket.close(fd) }
        try send(Array(head.utf8) + body, on: fd, what: "\(method) \(path)")
        return try read(from: fd, what: "\(method) \(path)")
    }

    private func send(_ bytes: [UInt8], on fd: Int32, what: String) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent: Int
            do {
                sent = try bytes.withUnsafeBytes { raw throws(SystemError) in
                    try Socket.send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
                }
            } catch {
                throw Failure(description: "sending \(what) to the test service failed: \(error)")
            }
            // A blocking socket returns 0 here only when its send timeout passed.
            guard sent > 0 else {
                throw Failure(description: "the test service did not take \(what) within \(timeoutSeconds) s")
            }
            offset += sent
        }
    }

    private func read(from fd: Int32, what: String) throws(Failure) -> Answer {
        var parser = HTTPResponseParser()
        parser.reset(bodyLimit: 8 * 1024 * 1024)
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !parser.isComplete {
            let count: Int?
            do {
                count = try buffer.withUnsafeMutableBytes { raw throws(SystemError) in try Socket.receive(fd, into: raw)
                }
            } catch {
                throw Failure(description: "reading the answer to \(what) failed: \(error)")
            }
            guard let count else {
                throw Failure(description: "the test service did not answer \(what) within \(timeoutSeconds) s")
            }
            if count == 0 {
                guard parser.endOfStream() else {
                    throw Failure(description: "the test service closed the connection before answering \(what) whole")
                }
                break
            }
            pending += buffer[..<count]
            do {
                let used = try pending.withUnsafeBytes { raw throws(HTTPResponseParseError) in try parser.parse(raw) }
                pending.removeFirst(used)
            } catch {
                throw Failure(description: "the test service's answer to \(what) is not HTTP/1.1: \(error)")
            }
        }
        return Answer(status: parser.head.status, body: parser.body)
    }
}
