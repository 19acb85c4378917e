import GronaMock
import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal blocking HTTP/1.1 GET for `grants verify --jwks URL`: plain `http://` only (a JWKS from a
/// grona-mock), with a timeout, `Connection: close`, and the body read to the end.
enum HTTPGet {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func fetch(_ url: String, timeoutSeconds: Int = 10, maxBytes: Int = 1 << 20) throws(Failure) -> [UInt8] {
        guard url.hasPrefix("http://") else {
            throw Failure(
                description: "only http:// URLs can be fetched; save an https JWKS to a file and pass the file")
        }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        let hostPort = authority.split(separator: ":", maxSplits: 1)
        let host = String(hostPort.first ?? "")
        let port = hostPort.count == 2 ? String(hostPort[1]) : "80"

        let fd: Int32
        do {
            fd = try Socket.connect(host: host, port: port, timeoutSeconds: timeoutSeconds)
        } catch {
            throw Failure(description: "cannot connect to \(authority): \(error)")
        }
        defer { close(fd) }
        var request = "GET \(path.isEmpty ? "/" : path) HTTP/1.1\r\nHost: \(authority)\r\nConnection: close\r\n"
        request += "Accept: application/json\r\n\r\n"
        let sent = request.utf8CString.withUnsafeBytes { send(fd, $0.baseAddress, $0.count - 1, 0) }
        guard sent > 0 else { throw Failure(description: "cannot send the request") }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while response.count <= maxBytes {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 { throw Failure(description: "reading the response failed or timed out") }
            if count == 0 { break }
            response += chunk[..<count]
        }
        return try body(of: response, url: url)
    }

    /// The body of a 200 response framed by Content-Length or by the end of the stream.
    private static func body(of response: [UInt8], url: String) throws(Failure) -> [UInt8] {
        let marker: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        guard
            let end = (0...max(0, response.count - 4)).first(where: {
                Array(response[$0..<min($0 + 4, response.count)]) == marker
            })
        else { throw Failure(description: "\(url) did not answer with HTTP") }
        let head = String(decoding: response[..<end], as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 200") || head.hasPrefix("HTTP/1.0 200") else {
            throw Failure(description: "\(url) answered \(head.split(separator: "\r\n").first ?? "nothing")")
        }
        if head.lowercased().contains("transfer-encoding: chunked") {
            throw Failure(description: "\(url) answered with a chunked body, which this client does not read")
        }
        return Array(response[(end + 4)...])
    }
}
