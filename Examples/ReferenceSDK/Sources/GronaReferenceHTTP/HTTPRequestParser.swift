/// Why a request could not be read, with the status it is answered with (RFC 9110 §15, RFC 6585 §5).
public enum HTTPParseError: Error, Sendable, Equatable {
    case malformed(String)
    case headersTooLarge
    case bodyTooLarge
    case unsupportedTransferCoding
    case unsupportedVersion

    public var status: Int {
        switch self {
        case .malformed: 400
        case .headersTooLarge: 431
        case .bodyTooLarge: 413
        case .unsupportedTransferCoding: 501
        case .unsupportedVersion: 505
        }
    }

    public var message: String {
        switch self {
        case .malformed(let reason): "malformed request: \(reason)"
        case .headersTooLarge: "the request head is larger than this server reads"
        case .bodyTooLarge: "the request body is larger than this server reads"
        case .unsupportedTransferCoding: "only Content-Length bodies are supported, not Transfer-Encoding"
        case .unsupportedVersion: "only HTTP/1.0 and HTTP/1.1 are supported"
        }
    }
}

/// Reads one request from bytes as they arrive, in any pieces: the head up to its blank line (RFC 9112 §2.1),
/// then exactly `Content-Length` body bytes (§6.3). No sockets and no clock, so every split of every input can be
/// tested. Anything it does not support is refused with its status, never guessed at: a `Transfer-Encoding`
/// (501), a head over `maxHeadBytes` (431), a body over `maxBodyBytes` (413, as soon as the length is known).
public struct HTTPRequestParser: Sendable {
    public struct Limits: Sendable {
        public var maxHeadBytes: Int
        public var maxBodyBytes: Int
        public var maxHeaderCount: Int

        public init(maxHeadBytes: Int = 16 << 10, maxBodyBytes: Int = 1 << 20, maxHeaderCount: Int = 100) {
            self.maxHeadBytes = maxHeadBytes
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderCount = maxHeaderCount
        }
    }

    public enum Outcome: Sendable {
        case needMore
        /// The head asked `Expect: 100-continue` (RFC 9110 §10.1.1) and a body is due: the server answers
        /// `100 Continue` (once), then feeds the body.
        case continueExpected
        case request(HTTPRequest)
        case failed(HTTPParseError)
    }

    private enum State: Sendable {
        case head
        case body(HTTPRequest, expected: Int)
        case done
    }

    public let limits: Limits
    private var state: State = .head
    private var buffer: [UInt8] = []
    /// Where the search for the head's end resumes: bytes before it were searched already, so a head that
    /// arrives a byte at a time is searched once, not once per byte.
    private var searchedUpTo = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Feeds the next bytes. After `.request` or `.failed` the parser is done; bytes after the request (a
    /// pipelined one) are ignored, since the server closes after each response.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> Outcome {
        guard case .done = state else {
            buffer.append(contentsOf: bytes)
            return advance()
        }
        return .needMore
    }

    private mutating func advance() -> Outcome {
        if case .head = state {
            guard let end = headEnd() else {
                return buffer.count > limits.maxHeadBytes ? fail(.headersTooLarge) : .needMore
            }
            guard end <= limits.maxHeadBytes else { return fail(.headersTooLarge) }
            let head = Array(buffer[..<end])
            buffer.removeFirst(end + 4)
            switch parseHead(head) {
            case .success(let (request, length)):
                state = .body(request, expected: length)
                let expectsContinue = request.header("Expect")?.lowercased() == "100-continue"
                if expectsContinue, length > 0, buffer.isEmpty { return .continueExpected }
            case .failure(let error): return fail(error)
            }
        }
        guard case .body(var request, let expected) = state else { return .needMore }
        guard buffer.count >= expected else { return .needMore }
        request.body = Array(buffer.prefix(expected))
        buffer = []
        state = .done
        return .request(request)
    }

    private mutating func fail(_ error: HTTPParseError) -> Outcome {
        state = .done
        buffer = []
        return .failed(error)
    }

    /// The index of the `\r\n\r\n` that ends the head, searched only as far as the limit allows.
    private mutating func headEnd() -> Int? {
        let limit = min(buffer.count, limits.maxHeadBytes + 4)
        guard limit >= 4, searchedUpTo <= limit - 4 else { return nil }
        for index in searchedUpTo...(limit - 4)
        where buffer[index] == 0x0D && buffer[index + 1] == 0x0A && buffer[index + 2] == 0x0D
            && buffer[index + 3] == 0x0A
        {
            return index
        }
        searchedUpTo = limit - 3
        return nil
    }

    private func parseHead(_ head: [UInt8]) -> Result<(HTTPRequest, Int), HTTPParseError> {
        let lines = split(head)
        guard let requestLine = lines.first else { return .failure(.malformed("no request line")) }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenCharacter),
            let first = parts[1].first, first == UInt8(ascii: "/"), parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return .failure(.malformed("the request line is not METHOD /target HTTP/1.1")) }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version.hasPrefix("HTTP/") else { return .failure(.malformed("no HTTP version")) }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return .failure(.unsupportedVersion) }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                line[line.startIndex..<colon].allSatisfy(isTokenCharacter)
            else { return .failure(.malformed("a header line is not name: value")) }
            let value = line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
            guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                return .failure(.malformed("a header value holds a control character"))
            }
            headers.append(
                (
                    String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                    String(decoding: value, as: UTF8.self).trimmingTrailingWhitespace()
                ))
            guard headers.count <= limits.maxHeaderCount else { return .failure(.headersTooLarge) }
        }
        let request = HTTPRequest(
            method: String(decoding: parts[0], as: UTF8.self), target: String(decoding: parts[1], as: UTF8.self),
            headers: headers)
        if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" }) {
            return .failure(.unsupportedTransferCoding)
        }
        let lengths = headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        guard let length = lengths.first else { return .success((request, 0)) }
        // RFC 9112 §6.3: a Content-Length that is not one decimal number, or several that differ, is an error.
        guard lengths.allSatisfy({ $0 == length }), !length.isEmpty, length.utf8.count <= 12,
            length.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let count = Int(length)
        else { return .failure(.malformed("Content-Length is not one decimal number")) }
        guard count <= limits.maxBodyBytes else { return .failure(.bodyTooLarge) }
        return .success((request, count))
    }

    /// The head's lines, split on CRLF. A bare CR or LF inside a line is refused by the callers' checks.
    private func split(_ head: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = head.startIndex
        var index = head.startIndex
        while index < head.endIndex {
            if head[index] == 0x0D, index + 1 < head.endIndex, head[index + 1] == 0x0A {
                lines.append(head[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        lines.append(head[start..<head.endIndex])
        return lines
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension String {
    fileprivate func trimmingTrailingWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
