/// Parses and validates a complete request head: the request line, the field lines, and the framing rules
/// of RFC 9112 §6 that decide where the body ends.
package enum HeadParser {
    /// `head` is the request line and field lines joined by CRLF, without the final empty line.
    static func parse(_ head: ArraySlice<UInt8>, limits: HTTPParserLimits) throws(HTTPParseError) -> HTTPRequestHead {
        var lines = LineIterator(head)
        guard let requestLine = try lines.next() else { throw .badRequest("empty request line") }
        let (method, target, version) = try parseRequestLine(requestLine)

        var headers = HTTPHeaders()
        while let line = try lines.next() {
            guard headers.count < limits.maxHeaderCount else {
                throw .headerFieldsTooLarge("more than \(limits.maxHeaderCount) header fields")
            }
            let (name, value) = try fieldLine(line)
            headers.add(name, value)
        }
        return try validate(method: method, target: target, version: version, headers: headers)
    }

    // MARK: - Request line (RFC 9112 §3)

    private static func parseRequestLine(
        _ line: ArraySlice<UInt8>
    ) throws(HTTPParseError) -> (HTTPMethod, String, HTTPVersion) {
        // Split at the first two spaces, as `split(maxSplits: 2)` would, without an array per request.
        guard let firstSpace = line.firstIndex(of: 0x20),
            let secondSpace = line[(firstSpace + 1)...].firstIndex(of: 0x20)
        else { throw .badRequest("the request line is not METHOD SP TARGET SP VERSION") }
        let methodBytes = line[line.startIndex..<firstSpace]
        let targetBytes = line[(firstSpace + 1)..<secondSpace]
        let versionBytes = line[(secondSpace + 1)...]

        guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenByte) else {
            throw .badRequest("the method is not a token")
        }
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .badRequest("the request target is empty or holds a space, control or non-ASCII byte")
        }
        let target = String(decoding: targetBytes, as: UTF8.self)
        guard target.hasPrefix("/") || target == "*" || target.hasPrefix("http://") || target.hasPrefix("https://")
        else {
            throw .badRequest("the request target is neither a path, an absolute URI nor *")
        }
        return (HTTPMethod(String(decoding: methodBytes, as: UTF8.self)), target, try parseVersion(versionBytes))
    }

    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        let start = bytes.startIndex
        guard bytes.count == 8, bytes.starts(with: "HTTP/".utf8), isDigit(bytes[start + 5]), bytes[start + 6] == 0x2E,
            isDigit(bytes[start + 7])
        else {
            throw .badRequest("the HTTP version is not HTTP/DIGIT.DIGIT")
        }
        switch (bytes[start + 5], bytes[start + 7]) {
        case (0x31, 0x31): return .http11
        case (0x31, 0x30): return .http10
        default: throw .versionNotSupported(String(decoding: bytes, as: UTF8.self))
        }
    }

    // MARK: - Field lines (RFC 9112 §5)

    /// One `name: value` line: the name a token with no space before the colon, the value visible characters,
    /// spaces, tabs and obs-text, with the optional whitespace around it dropped.
    static func fieldLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (String, String) {
        guard let first = line.first else { throw .badRequest("empty field line") }
        if first == 0x20 || first == 0x09 {
            throw .badRequest("obsolete line folding is not accepted")
        }
        guard let colon = line.firstIndex(of: 0x3A) else { throw .badRequest("a field line has no colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            throw .badRequest("a field name is not a token (or has whitespace before the colon)")
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == 0x20 || byte == 0x09 { value.removeFirst() }
        while let byte = value.last, byte == 0x20 || byte == 0x09 { value.removeLast() }
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw .badRequest("a field value holds a control character")
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    // MARK: - Semantics and framing

    private static func validate(
        method: HTTPMethod, target: String, version: HTTPVersion, headers: HTTPHeaders
    ) throws(HTTPParseError) -> HTTPRequestHead {
        // One look at each field's name, so that the fields a request rarely has (most carry Host alone) cost
        // no lookups and no lists.
        var hosts = 0
        var host: String?
        var present = FieldsPresent()
        for field in headers {
            if HTTPHeaders.namesMatch(field.name, "Host") {
                hosts += 1
                host = host ?? field.value
            } else {
                present.note(field.name)
            }
        }
        if hosts > 1 { throw .badRequest("more than one Host field") }
        if version == .http11 && hosts == 0 { throw .badRequest("an HTTP/1.1 request without a Host field") }
        if let host, !host.utf8.allSatisfy(isHostByte) { throw .badRequest("an invalid Host field") }

        let framing = present.framing ? try bodyFraming(version: version, headers: headers) : .none

        let connection = present.connection ? headers.tokens("Connection") : []
        let keepAlive: Bool =
            switch version {
            case .http11: !connection.contains("close")
            case .http10: connection.contains("keep-alive") && !connection.contains("close")
            }

        var expectsContinue = false
        for expectation in present.expect ? headers.tokens("Expect") : [] {
            guard expectation == "100-continue" else { throw .expectationFailed(String(expectation.prefix(40))) }
            // RFC 9110 §10.1.1: a 100-continue expectation in an HTTP/1.0 request is ignored.
            expectsContinue = version == .http11
        }

        return HTTPRequestHead(
            method: method, target: target, version: version, headers: headers, keepAlive: keepAlive,
            expectsContinue: expectsContinue, framing: framing)
    }

    /// RFC 9112 §6.1 and §6.3: Transfer-Encoding beside Content-Length is refused outright, as is
    /// Transfer-Encoding in HTTP/1.0; chunked must be the only and last coding; Content-Length must be one
    /// decimal number, repeated identically at most.
    private static func bodyFraming(
        version: HTTPVersion, headers: HTTPHeaders
    ) throws(HTTPParseError) -> HTTPRequestHead.BodyFraming {
        let transferEncodings = headers.values("Transfer-Encoding")
        let contentLengths = headers.values("Content-Length")

        if !transferEncodings.isEmpty {
            if !contentLengths.isEmpty { throw .badRequest("both Content-Length and Transfer-Encoding") }
            if version == .http10 { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
            let codings = headers.tokens("Transfer-Encoding")
            // §6.1: a coding the server does not understand, with no chunked to delimit the body, is 501.
            guard codings.isEmpty || codings.contains("chunked") else {
                throw .notImplemented("transfer codings other than chunked")
            }
            guard codings.last == "chunked" else { throw .badRequest("chunked is not the final transfer coding") }
            guard codings.count == 1 else {
                if codings.dropLast().contains("chunked") { throw .badRequest("chunked applied more than once") }
                throw .notImplemented("transfer codings other than chunked")
            }
            return .chunked
        }

        guard !contentLengths.isEmpty else { return .none }
        var length: Int?
        for element in contentLengths.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let digits = element.trimmingASCIIWhitespace()
            guard !digits.isEmpty, digits.utf8.allSatisfy(isDigit) else {
                throw .badRequest("an invalid Content-Length")
            }
            // A length beyond Int.max is valid syntax but larger than any limit: saturate, and 413 follows.
            // Leading zeros do not count towards that (`000…05` is 5, and repeats `5` without conflict).
            let significant = digits.drop { $0 == "0" }
            let value = significant.isEmpty ? 0 : significant.count > 18 ? Int.max : Int(significant) ?? Int.max
            if let earlier = length, earlier != value { throw .badRequest("conflicting Content-Length values") }
            length = value
        }
        return length.map { $0 == 0 ? .none : .contentLength($0) } ?? .none
    }

    /// Which of the fields that change how a request is read it has, besides Host.
    private struct FieldsPresent {
        var connection = false
        var expect = false
        /// Transfer-Encoding or Content-Length.
        var framing = false

        mutating func note(_ name: String) {
            // Each name is compared only when its length fits: most fields are none of these.
            switch name.utf8.count {
            case 6: expect = expect || HTTPHeaders.namesMatch(name, "Expect")
            case 10: connection = connection || HTTPHeaders.namesMatch(name, "Connection")
            case 14: framing = framing || HTTPHeaders.namesMatch(name, "Content-Length")
            case 17: framing = framing || HTTPHeaders.namesMatch(name, "Transfer-Encoding")
            default: break
            }
        }
    }

    // MARK: - Character classes

    /// tchar (RFC 9110 §5.6.2).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    package static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// uri-host [":" port] characters (RFC 3986 §3.2.2): reg-name, IP literals and percent-encoding.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
            true
        default: false
        }
    }
}

/// Splits a head into lines at CRLF, refusing a bare CR or LF inside a line (RFC 9112 §2.2).
private struct LineIterator {
    private var rest: ArraySlice<UInt8>
    private var done = false

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    mutating func next() throws(HTTPParseError) -> ArraySlice<UInt8>? {
        guard !done else { return nil }
        guard let cr = rest.firstIndex(where: { $0 == 0x0D || $0 == 0x0A }) else {
            done = true
            return rest
        }
        guard rest[cr] == 0x0D, cr + 1 < rest.endIndex, rest[cr + 1] == 0x0A else {
            throw .badRequest("a bare CR or LF in the header section")
        }
        let line = rest[rest.startIndex..<cr]
        rest = rest[(cr + 2)...]
        return line
    }
}

/// The chunk-size line of the chunked coding (RFC 9112 §7.1): hex digits and optional extensions, which
/// are checked for stray control bytes and otherwise ignored.
enum ChunkLine {
    /// The chunk's size; a size beyond 15 hex digits saturates to `Int.max`, which any body limit refuses.
    static func size(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        let digits = line.prefix(while: isHexDigit)
        guard !digits.isEmpty else { throw .badRequest("a chunk size is not hexadecimal") }
        let extensions = line[digits.endIndex...]
        let afterSpace = extensions.drop(while: { $0 == 0x20 || $0 == 0x09 })
        guard afterSpace.isEmpty ? extensions.isEmpty : afterSpace.first == UInt8(ascii: ";") else {
            throw .badRequest("a chunk size is followed by something other than an extension")
        }
        guard extensions.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw .badRequest("a chunk extension holds a control character")
        }
        let significant = digits.drop(while: { $0 == 0x30 })
        guard significant.count <= 15 else { return Int.max }
        return significant.reduce(0) { $0 << 4 | hexValue($1) }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        HeadParser.isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }

    private static func hexValue(_ byte: UInt8) -> Int {
        HeadParser.isDigit(byte) ? Int(byte - 0x30) : Int(byte | 0x20) - 0x61 + 10
    }
}
