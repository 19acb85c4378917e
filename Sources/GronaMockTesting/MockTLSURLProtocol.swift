import Foundation
import GronaMockPlatform

#if canImport(FoundationNetworking)
import FoundationNetworking
import GronaMockTLS
import GronaMockTLSCore

/// On Linux, the HTTPS requests of `makeURLSession` sessions to a test mock: FoundationNetworking's libcurl
/// cannot be given a CA, so these requests go over OpenSSL with the mock's own CA instead (the certificate
/// verified, host name included), as HTTP/1.1 with one connection per request. Any other URL is not taken,
/// and reaches libcurl as usual.
final class MockTLSURLProtocol: URLProtocol {
    /// The CA of each running TLS mock, by `host:port`.
    private static let trusted = Mutex<[String: GronaMockCertificateAuthority]>([:])

    static func trust(_ authority: GronaMockCertificateAuthority, for baseURL: URL) {
        trusted.withLock { $0[key(baseURL)] = authority }
    }

    static func forget(_ baseURL: URL) {
        _ = trusted.withLock { $0.removeValue(forKey: key(baseURL)) }
    }

    private static func key(_ url: URL) -> String { "\(url.host ?? ""):\(url.port ?? 443)" }

    private static func authority(for url: URL?) -> GronaMockCertificateAuthority? {
        guard let url, url.scheme == "https" else { return nil }
        return trusted.withLock { $0[key(url)] }
    }

    override class func canInit(with request: URLRequest) -> Bool { authority(for: request.url) != nil }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        // The exchange blocks on its socket: never on the session's queue. Only that thread uses the protocol
        // object from then on (URLProtocol is not Sendable; its client calls are made from any thread).
        let box = Handoff(self)
        Thread.detachNewThread { box.value.load() }
    }

    override func stopLoading() {}

    private func load() {
        guard let url = request.url, let host = url.host, let authority = Self.authority(for: url) else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        do {
            let reply = try HTTPSExchange.perform(
                request, host: host, port: url.port ?? 443, context: authority.client)
            guard
                let response = HTTPURLResponse(
                    url: url, statusCode: reply.status, httpVersion: "HTTP/1.1", headerFields: reply.headers)
            else { throw URLError(.badServerResponse) }
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            if !reply.body.isEmpty { client?.urlProtocol(self, didLoad: Data(reply.body)) }
            client?.urlProtocolDidFinishLoading(self)
        } catch let error as URLError {
            client?.urlProtocol(self, didFailWithError: error)
        } catch {
            client?.urlProtocol(
                self,
                didFailWithError: URLError(.secureConnectionFailed, userInfo: [NSLocalizedDescriptionKey: "\(error)"]))
        }
    }
}

/// Hands one object to the thread that alone uses it from then on.
private struct Handoff<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// One HTTP/1.1 request and its answer over TLS, `Connection: close`, on a blocking socket.
enum HTTPSExchange {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    static func perform(
        _ request: URLRequest, host: String, port: Int, context: ClientTLSContext
    ) throws -> Reply {
        let timeout = Int(max(1, min(request.timeoutInterval, 120)))
        let fd = try Socket.connect(host: host, port: String(port), timeoutSeconds: timeout)
        defer { close(fd) }
        let session = try context.connect(fd: fd, host: host)
        let method = request.httpMethod ?? "GET"
        let body = request.httpBody.map { Array($0) } ?? request.httpBodyStream.map(drain) ?? []
        // The path as written, still percent-encoded (`URL.path` decodes it: a `%20` would become a space that
        // breaks the request line) and with its trailing slash.
        let components = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true) }
        var target = components.map(\.percentEncodedPath).flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in request.allHTTPHeaderFields ?? [:]
        where !["host", "connection", "content-length"].contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        try session.write(Array((head + "\r\n").utf8) + body)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        // True when the server ended with close_notify; a bare close or a reset is an incomplete close,
        // which cuts a close-delimited body (RFC 9112 §9.8).
        var endedCleanly = true
        while true {
            guard received.count <= maxResponseBytes else { throw URLError(.dataLengthExceedsMaximum) }
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try session.read(into: $0) }
            } catch let error as TLSError where error.isTimeout {
                throw URLError(.timedOut)
            } catch {
                endedCleanly = false
                break
            }
            if count == 0 { break }
            received += buffer.prefix(count)
        }
        return try parse(received, isHead: method == "HEAD", endedCleanly: endedCleanly)
    }

    /// A larger answer fails rather than arriving cut.
    static let maxResponseBytes = 64 * 1024 * 1024

    private static func drain(_ stream: InputStream) -> [UInt8] {
        stream.open()
        defer { stream.close() }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while case let count = stream.read(&buffer, maxLength: buffer.count), count > 0 {
            bytes += buffer.prefix(count)
        }
        return bytes
    }

    /// The status line, header fields (repeated names joined with ", ", RFC 9110 §5.3) and the body, by its
    /// Content-Length, its chunked framing, or to the close. An answer shorter than its framing says, or a
    /// close-delimited one without close_notify, was cut: `networkConnectionLost`, as Apple's URLSession says.
    static func parse(_ bytes: [UInt8], isHead: Bool, endedCleanly: Bool = true) throws -> Reply {
        guard let end = headEnd(bytes) else {
            throw URLError(endedCleanly && !bytes.isEmpty ? .badServerResponse : .networkConnectionLost)
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let rest = bytes[(end + 4)...]
        let field = { (name: String) in headers.first { $0.key.lowercased() == name }?.value }
        // No body: HEAD, 1xx, 204 and 304 (RFC 9112 §6.3).
        if isHead || status < 200 || status == 204 || status == 304 {
            return Reply(status: status, headers: headers, body: [])
        }
        if field("transfer-encoding")?.lowercased() == "chunked" {
            return Reply(status: status, headers: headers, body: try unchunk(Array(rest)))
        }
        if let length = field("content-length") {
            guard let expected = Int(length.trimmingCharacters(in: .whitespaces)), expected >= 0 else {
                throw URLError(.badServerResponse)
            }
            guard rest.count >= expected else { throw URLError(.networkConnectionLost) }
            return Reply(status: status, headers: headers, body: Array(rest.prefix(expected)))
        }
        guard endedCleanly else { throw URLError(.networkConnectionLost) }
        return Reply(status: status, headers: headers, body: Array(rest))
    }

    /// Where the head's blank line starts.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...bytes.count - 4).first {
            bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
        }
    }

    private static func unchunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = []
        var index = 0
        while let lineEnd = (index..<max(index, bytes.count - 1)).first(where: {
            bytes[$0] == 13 && bytes[$0 + 1] == 10
        }) {
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw URLError(.badServerResponse)
            }
            if size == 0 { return body }
            let start = lineEnd + 2
            // Compared without adding: a size near Int.max would overflow `start + size`.
            guard size <= bytes.count - start else { throw URLError(.networkConnectionLost) }
            body += bytes[start..<start + size]
            index = start + size + 2
        }
        throw URLError(.networkConnectionLost)
    }
}
#endif
