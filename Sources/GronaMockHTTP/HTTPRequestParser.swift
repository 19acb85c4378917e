/// Limits the request parser enforces, each answered with its own status.
public struct HTTPParserLimits: Sendable {
    /// Request line plus header section, CRLFs included: over it, 431. The same bound applies to a trailer
    /// section and to one chunk-size line.
    public var maxHeadBytes: Int
    /// Header field lines per request: over it, 431.
    public var maxHeaderCount: Int

    public init(maxHeadBytes: Int = 16 * 1024, maxHeaderCount: Int = 100) {
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
    }
}

/// What the parser found in the bytes it was given.
public enum HTTPParserEvent: Sendable {
    /// A complete, valid request head. Call `acceptBody(limit:)` before the next `next()`.
    case head(HTTPRequestHead)
    /// The request's whole body (empty when it has none); the parser is ready for the next request.
    case body([UInt8])
}

/// An incremental HTTP/1.1 request parser (RFC 9112) over bytes that arrive in any split.
///
/// Pure Swift with no system dependencies, so the fuzz target compiles it alone. It is strict where
/// leniency lets two parsers disagree about where a message ends (request smuggling): CRLF only, no
/// obs-fold, no whitespace before a colon, one Content-Length value, no Content-Length beside
/// Transfer-Encoding, chunked only and last.
public struct HTTPRequestParser {
    private enum State {
        /// Looking for the blank line that ends the head; `scanned` bytes past `readIndex` hold none.
        case head(scanned: Int)
        /// The head was returned; waiting for `acceptBody(limit:)`.
        case headReturned(HTTPRequestHead.BodyFraming)
        case fixedBody(remaining: Int)
        case chunkSize(scanned: Int)
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(scanned: Int, lines: Int, bytes: Int)
        case bodyComplete
        case failed(HTTPParseError)
    }

    public let limits: HTTPParserLimits
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var state = State.head(scanned: 0)
    private var body: [UInt8] = []
    private var bodyLimit = 0

    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfUseful()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        compactIfUseful()
        buffer.append(contentsOf: bytes)
    }

    /// True between the first byte of a request and its last: a timeout here is a 408, not an idle close.
    public var isInsideRequest: Bool {
        switch state {
        case .head: buffer[readIndex...].contains { $0 != 0x0D && $0 != 0x0A }
        default: true
        }
    }

    /// Bytes received and not yet consumed.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// The next head or body, nil when more bytes are needed. After an error every call throws it again.
    public mutating func next() throws(HTTPParseError) -> HTTPParserEvent? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    /// Sets the body limit for the request whose head was just returned: a declared length over it fails at
    /// once with 413, before any of the body is read, and a chunked body fails as soon as it passes it.
    public mutating func acceptBody(limit: Int) throws(HTTPParseError) {
        guard case .headReturned(let framing) = state else { return }
        body = []
        bodyLimit = limit
        switch framing {
        case .none:
            state = .bodyComplete
        case .contentLength(let length):
            guard length <= limit else {
                state = .failed(.contentTooLarge(limit: limit))
                throw .contentTooLarge(limit: limit)
            }
            // Reserve for what is likely to arrive soon, not all that was declared: a client that declares a
            // large body and sends nothing must not hold that much memory.
            body.reserveCapacity(min(length, 64 * 1024))
            state = length == 0 ? .bodyComplete : .fixedBody(remaining: length)
        case .chunked:
            state = .chunkSize(scanned: 0)
        }
    }

    // MARK: - States

    private mutating func step() throws(HTTPParseError) -> HTTPParserEvent? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .head(let scanned):
                skipLeadingEmptyLines()
                guard let end = try findBlankLine(scanned: scanned) else { return nil }
                let head = try HeadParser.parse(buffer[readIndex..<end - 4], limits: limits)
                readIndex = end
                state = .headReturned(head.framing)
                return .head(head)
            case .headReturned:
                return nil
            case .fixedBody(let remaining):
                let taken = takeBody(upTo: remaining)
                guard taken == remaining else {
                    state = .fixedBody(remaining: remaining - taken)
                    return nil
                }
                state = .bodyComplete
            case .chunkSize(var scanned):
                let maxLine = limits.maxHeadBytes
                guard let lineEnd = try findLineEnd(scanned: &scanned, maxBytes: maxLine, what: "chunk size line")
                else {
                    state = .chunkSize(scanned: scanned)
                    return nil
                }
                let size = try ChunkLine.size(buffer[readIndex..<lineEnd - 2])
                guard size <= bodyLimit - body.count else { throw .contentTooLarge(limit: bodyLimit) }
                readIndex = lineEnd
                state = size == 0 ? .trailers(scanned: 0, lines: 0, bytes: 0) : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let taken = takeBody(upTo: remaining)
                state = taken == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - taken)
                if taken < remaining { return nil }
            case .chunkDataEnd:
                guard bufferedByteCount >= 2 else { return nil }
                guard buffer[readIndex] == 0x0D, buffer[readIndex + 1] == 0x0A else {
                    throw .badRequest("chunk data is not followed by CRLF")
                }
                readIndex += 2
                state = .chunkSize(scanned: 0)
            case .trailers(var scanned, let lines, let bytes):
                let maxLine = limits.maxHeadBytes - bytes
                guard let lineEnd = try findLineEnd(scanned: &scanned, maxBytes: maxLine, what: "trailer section")
                else {
                    state = .trailers(scanned: scanned, lines: lines, bytes: bytes)
                    return nil
                }
                let line = buffer[readIndex..<lineEnd - 2]
                readIndex = lineEnd
                if line.isEmpty {
                    state = .bodyComplete
                    continue
                }
                guard lines < limits.maxHeaderCount else {
                    throw .headerFieldsTooLarge("more than \(limits.maxHeaderCount) trailer fields")
                }
                _ = try HeadParser.fieldLine(line)
                state = .trailers(scanned: 0, lines: lines + 1, bytes: bytes + line.count + 2)
            case .bodyComplete:
                state = .head(scanned: 0)
                let complete = body
                body = []
                return .body(complete)
            }
        }
    }

    // MARK: - Buffer

    /// RFC 9112 §2.2: a server SHOULD ignore at least one empty line received before the request line.
    private mutating func skipLeadingEmptyLines() {
        while bufferedByteCount >= 2, buffer[readIndex] == 0x0D, buffer[readIndex + 1] == 0x0A {
            readIndex += 2
        }
    }

    /// The index just past the CRLFCRLF that ends the head, or nil; remembers how far it looked so that
    /// bytes arriving one at a time are not scanned again and again.
    ///
    /// A bare LF fails at once with 400 (RFC 9112 §2.2 lets a recipient accept one; we choose not to, as most
    /// proxies do not, so a head ended by bare LFs never waits for a CRLFCRLF that will not come). Only the
    /// first `maxHeadBytes` are looked at, so a bare LF past the limit is a 431 however the bytes were split.
    private mutating func findBlankLine(scanned: Int) throws(HTTPParseError) -> Int? {
        let start = readIndex
        let end = min(buffer.count, start + limits.maxHeadBytes)
        let scan = buffer.withUnsafeBufferPointer { bytes -> (found: Int?, bareLF: Bool) in
            var index = start + scanned
            while index < end {
                if bytes[index] == 0x0A {
                    guard index > start, bytes[index - 1] == 0x0D else { return (nil, true) }
                    if index - start >= 3, bytes[index - 2] == 0x0A, bytes[index - 3] == 0x0D {
                        return (index + 1, false)
                    }
                }
                index += 1
            }
            return (nil, false)
        }
        if scan.bareLF { throw .badRequest("a bare LF in the header section (lines end with CRLF)") }
        let found = scan.found
        let length = (found ?? buffer.count) - start
        if length > limits.maxHeadBytes || (found == nil && length >= limits.maxHeadBytes) {
            throw .headerFieldsTooLarge("request line and headers exceed \(limits.maxHeadBytes) bytes")
        }
        if found == nil { state = .head(scanned: max(0, length - 3)) }
        return found
    }

    /// The index just past the next CRLF, or nil when it has not arrived yet. `scanned` remembers how far
    /// it looked. A line whose CRLF would end past `maxBytes` is refused with 431 as soon as the byte that
    /// makes it too long arrives, whatever that byte is, so the verdict never depends on how the bytes were
    /// split: a bare LF after an over-long line is a 431 whether it came in the same read or a later one.
    private func findLineEnd(scanned: inout Int, maxBytes: Int, what: String) throws(HTTPParseError) -> Int? {
        var index = readIndex + scanned
        while index < buffer.count {
            guard index - readIndex + 2 <= maxBytes else {
                throw .headerFieldsTooLarge("\(what) exceeds \(limits.maxHeadBytes) bytes")
            }
            switch buffer[index] {
            case 0x0D:
                guard index + 1 < buffer.count else {
                    scanned = index - readIndex
                    return nil
                }
                guard buffer[index + 1] == 0x0A else { throw .badRequest("bare CR in \(what)") }
                return index + 2
            case 0x0A:
                throw .badRequest("bare LF in \(what)")
            default:
                index += 1
            }
        }
        scanned = index - readIndex
        return nil
    }

    /// Moves up to `count` buffered bytes into the body, returning how many it moved.
    private mutating func takeBody(upTo count: Int) -> Int {
        let taken = min(count, bufferedByteCount)
        body.append(contentsOf: buffer[readIndex..<readIndex + taken])
        readIndex += taken
        return taken
    }

    /// Drops consumed bytes once they are the larger part, keeping appends amortised O(1).
    private mutating func compactIfUseful() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex > 4096, readIndex * 2 > buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }
}
