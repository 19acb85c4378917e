/// Reads one HTTP/1.1 response at a time from bytes as they arrive (RFC 9112 §6): the head, then a body framed
/// by `Content-Length`, by chunks, or by the end of the connection. It consumes what it can and says how much;
/// the caller keeps the rest (a partial line) and offers it again with more bytes.
package struct HTTPResponseParser: Sendable {
    /// The largest head read, and the largest body any answer may have (a page of `/_mock/events` is below it);
    /// each answer is read to its own, smaller, `bodyLimit` (see `AnswerLimit`).
    package static let maximumHeadBytes = 64 * 1024
    package static let maximumBodyBytes = 32 * 1024 * 1024

    package enum State: Sendable, Equatable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case complete
    }

    package private(set) var state = State.head
    package private(set) var head = HTTPResponseHead()
    /// The most body bytes this answer may have (at most `maximumBodyBytes`): more is `.tooLarge`, and a
    /// `Content-Length` above it is refused before a byte of the body is read.
    package private(set) var bodyLimit = maximumBodyBytes
    /// The body so far (reused between responses: `reset` keeps its storage).
    package private(set) var body: [UInt8] = []
    /// Bytes of this response that were not body: heads (interim ones too), chunk lines and their CRLFs,
    /// trailers. A server under test can send these for ever without the body growing (trailers that never
    /// end, `100 Continue` after `100 Continue`, a 1 KiB extension on every one-byte chunk), so they are held to
    /// `maximumHeadBytes` beyond the body read: a fair chunked body spends a few bytes of framing per chunk.
    private var framing = 0
    /// The most a claimed `Content-Length` reserves before the bytes arrive: a server that claims megabytes and
    /// sends two bytes costs no megabytes per connection.
    static let reservedBodyBytes = 16 * 1024

    package init() {}

    /// Ready for the next response on the same connection, whose body may have `bodyLimit` bytes at most. The
    /// body's storage is let go (the answer just read owns it now), so that a connection between answers holds
    /// none: with thousands in flight, what each kept would add up.
    package mutating func reset(bodyLimit: Int = maximumBodyBytes) {
        state = .head
        head = HTTPResponseHead()
        framing = 0
        self.bodyLimit = min(max(0, bodyLimit), Self.maximumBodyBytes)
        body = []
    }

    /// Makes room for `bytes` of body at once (at most the limit), when the client has granted them: a large
    /// body is then read without the copies of an array that doubles.
    mutating func reserveBody(_ bytes: Int) {
        body.reserveCapacity(min(bytes, bodyLimit))
    }

    package var isComplete: Bool { state == .complete }

    /// Whether a response was begun (a byte of it read): a connection that ends then has lost an answer.
    package var hasStarted: Bool { state != .head }

    /// Consumes what it can of `bytes`; returns the count consumed. Stops at the end of one response.
    package mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPResponseParseError) -> Int {
        var offset = 0
        while offset < bytes.count && state != .complete {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let used = try step(rest)
            if used == 0 { break }
            offset += used
        }
        return offset
    }

    /// The connection ended: a body read until the close is then complete; anything else was cut short.
    package mutating func endOfStream() -> Bool {
        if state == .untilClose { state = .complete }
        return state == .complete
    }

    /// Counts `count` bytes of framing; throws when they outgrow what the body read can explain.
    private mutating func spend(_ count: Int) throws(HTTPResponseParseError) -> Int {
        framing += count
        guard framing <= Self.maximumHeadBytes + body.count else { throw .tooLarge }
        return count
    }

    private mutating func step(_ bytes: UnsafeRawBufferPointer) throws(HTTPResponseParseError) -> Int {
        switch state {
        case .head:
            guard let end = Self.find(headEnd: bytes) else {
                if framing + bytes.count > Self.maximumHeadBytes { throw .tooLarge }
                return 0
            }
            _ = try spend(end + 4)
            head = try HTTPResponseHead.parse(UnsafeRawBufferPointer(rebasing: bytes[..<end]))
            if (100..<200).contains(head.status) {
                // An interim answer (100 Continue): skip it and read the final one.
                head = HTTPResponseHead()
                return end + 4
            }
            if !head.hasBody {
                state = .complete
            } else if head.chunked {
                state = .chunkSize
            } else if let length = head.contentLength {
                guard length <= bodyLimit else { throw .tooLarge }
                body.reserveCapacity(min(length, Self.reservedBodyBytes))
                state = length == 0 ? .complete : .fixedBody(remaining: length)
            } else {
                state = .untilClose
            }
            return end + 4
        case .fixedBody(let remaining):
            let taken = min(remaining, bytes.count)
            body.append(contentsOf: bytes[..<taken])
            state = taken == remaining ? .complete : .fixedBody(remaining: remaining - taken)
            return taken
        case .chunkSize:
            guard let lineEnd = Self.find(lineEnd: bytes) else {
                if bytes.count > 1024 { throw .malformed("a chunk size line is too long") }
                return 0
            }
            let size = try Self.chunkSize(UnsafeRawBufferPointer(rebasing: bytes[..<lineEnd]))
            guard size <= bodyLimit - body.count else { throw .tooLarge }
            state = size == 0 ? .trailers : .chunkData(remaining: size)
            return try spend(lineEnd + 2)
        case .chunkData(let remaining):
            let taken = min(remaining, bytes.count)
            body.append(contentsOf: bytes[..<taken])
            state = taken == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - taken)
            return taken
        case .chunkDataEnd:
            guard bytes.count >= 2 else { return 0 }
            guard bytes[0] == 0x0D && bytes[1] == 0x0A else { throw .malformed("a chunk does not end with CRLF") }
            state = .chunkSize
            return try spend(2)
        case .trailers:
            guard let lineEnd = Self.find(lineEnd: bytes) else {
                if framing + bytes.count > Self.maximumHeadBytes + body.count { throw .tooLarge }
                return 0
            }
            if lineEnd == 0 { state = .complete }
            return try spend(lineEnd + 2)
        case .untilClose:
            guard bytes.count <= bodyLimit - body.count else { throw .tooLarge }
            body.append(contentsOf: bytes)
            return bytes.count
        case .complete:
            return 0
        }
    }

    /// The hexadecimal size before any chunk extension (RFC 9112 §7.1.1).
    private static func chunkSize(_ line: UnsafeRawBufferPointer) throws(HTTPResponseParseError) -> Int {
        var size = 0
        var digits = 0
        for byte in line {
            let value: Int
            switch byte {
            case 0x30...0x39: value = Int(byte - 0x30)
            case 0x41...0x46: value = Int(byte - 0x41 + 10)
            case 0x61...0x66: value = Int(byte - 0x61 + 10)
            case UInt8(ascii: ";"), 0x20, 0x09:
                guard digits > 0 else { throw .malformed("a chunk size is missing") }
                return size
            default: throw .malformed("a chunk size is not hexadecimal")
            }
            digits += 1
            guard digits <= 8 else { throw .malformed("a chunk size is too large") }
            size = size * 16 + value
        }
        guard digits > 0 else { throw .malformed("a chunk size is missing") }
        return size
    }

    /// The offset of the CRLFCRLF that ends a head.
    private static func find(headEnd bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index + 3] != 0x0A {
                index += bytes[index + 3] == 0x0D ? 1 : 4
                continue
            }
            if bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D { return index }
            index += 1
        }
        return nil
    }

    /// The offset of the CRLF that ends a line.
    private static func find(lineEnd bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 0..<(bytes.count - 1) where bytes[index] == 0x0D && bytes[index + 1] == 0x0A {
            return index
        }
        return nil
    }
}
