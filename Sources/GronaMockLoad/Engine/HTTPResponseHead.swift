/// What the load client reads from a response head: the status, the framing (RFC 9112 §6), and the few fields a
/// simulated SDK acts on (`Retry-After`, `ETag`, `Cache-Control: max-age`). Everything else is skipped unread.
package struct HTTPResponseHead: Sendable, Equatable {
    package var status = 0
    /// HTTP/1.1 without `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`.
    package var keepAlive = true
    package var contentLength: Int?
    package var chunked = false
    /// `Retry-After` in seconds (RFC 9110 §10.2.3), when it is delay-seconds.
    package var retryAfterSeconds: Int?
    /// `Retry-After` as Unix seconds, when it is an HTTP-date in the IMF-fixdate form senders must use
    /// (RFC 9110 §5.6.7); the obsolete forms are ignored.
    package var retryAfterDate: Int64?
    package var etag: String?
    /// `max-age` of `Cache-Control` (RFC 9111 §5.2.2.1).
    package var maxAgeSeconds: Int?

    package init() {}

    /// Whether a body follows the head: never for 1xx, 204 and 304 (RFC 9112 §6.3).
    var hasBody: Bool { !(100..<200).contains(status) && status != 204 && status != 304 }
}

/// Why a response could not be read.
package enum HTTPResponseParseError: Error, Sendable, Equatable {
    case malformed(String)
    case tooLarge
}

extension HTTPResponseHead {
    /// Parses a head from its bytes, up to and without the blank line.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPResponseParseError) -> HTTPResponseHead {
        var head = HTTPResponseHead()
        var lines = LineCursor(bytes)
        guard let statusLine = lines.next() else { throw .malformed("no status line") }
        // "HTTP/1.x SSS reason" (RFC 9112 §4).
        guard statusLine.count >= 12, statusLine.starts(with: Array("HTTP/1.".utf8)), statusLine[8] == 0x20 else {
            throw .malformed("the status line is not HTTP/1.x")
        }
        let isHTTP10 = statusLine[7] == UInt8(ascii: "0")
        head.keepAlive = !isHTTP10
        var status = 0
        for index in 9..<12 {
            let digit = Int(statusLine[index]) - 48
            guard (0...9).contains(digit) else { throw .malformed("the status is not three digits") }
            status = status * 10 + digit
        }
        guard status >= 100 else { throw .malformed("status \(status)") }
        head.status = status
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw .malformed("a header line has no colon")
            }
            let name = line[line.startIndex..<colon]
            let value = trimmed(line[(colon + 1)...])
            switch lowercased(name) {
            case "content-length":
                guard head.contentLength == nil, let length = decimal(value), length >= 0 else {
                    throw .malformed("a bad or repeated Content-Length")
                }
                head.contentLength = length
            case "transfer-encoding":
                // chunked must be the last coding (RFC 9112 §6.3); anything else is read until the close.
                head.chunked = lowercased(value).hasSuffix("chunked")
            case "connection":
                let tokens = lowercased(value)
                if tokens.contains("close") { head.keepAlive = false }
                if isHTTP10 && tokens.contains("keep-alive") { head.keepAlive = true }
            case "retry-after":
                head.retryAfterSeconds = decimal(value)
                head.retryAfterDate = head.retryAfterSeconds == nil ? IMFFixdate.seconds(value) : nil
            case "etag":
                head.etag = etag(value)
            case "cache-control":
                head.maxAgeSeconds = maxAge(lowercased(value))
            default:
                continue
            }
        }
        if head.chunked && head.contentLength != nil {
            throw .malformed("both Content-Length and Transfer-Encoding")
        }
        return head
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice.removeLast() }
        return slice
    }

    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// A non-negative decimal of at most 15 digits (so it cannot overflow), or nil.
    static func decimal(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 15 else { return nil }
        var value = 0
        for byte in bytes {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// An entity tag the client can send back in `If-None-Match`: visible ASCII (RFC 9110 §8.8.3's etagc
    /// without obs-text) and at most 1 KiB. Lines end at LF here, so a bare CR in the value would otherwise
    /// go out in the next request's head; anything else is ignored, and the next poll is unconditional.
    private static func etag(_ value: ArraySlice<UInt8>) -> String? {
        guard (1...1024).contains(value.count), value.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return String(decoding: value, as: UTF8.self)
    }

    private static func maxAge(_ value: String) -> Int? {
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingSpaces == "max-age" {
                return decimal(Array(parts[1].trimmingSpaces.utf8))
            }
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// The CRLF-separated lines of a head.
private struct LineCursor {
    private let bytes: [UInt8]
    private var position = 0

    init(_ buffer: UnsafeRawBufferPointer) { bytes = Array(buffer) }

    mutating func next() -> ArraySlice<UInt8>? {
        guard position < bytes.count else { return nil }
        var end = position
        while end < bytes.count && bytes[end] != 0x0A { end += 1 }
        var lineEnd = end
        if lineEnd > position && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        defer { position = end + 1 }
        return bytes[position..<lineEnd]
    }
}
