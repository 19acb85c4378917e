/// The `http-parser` fuzz target: `HTTPRequestParser` on arbitrary bytes. `FuzzMain.swift` calls
/// `httpParserFuzz` for it; this file uses nothing but the parser and the types it returns.
///
/// Each input is fed three ways: whole, byte by byte, and in splits drawn from a generator seeded with the
/// input's hash. The parser must never crash, every run must obey the invariants below, and the three runs
/// must agree event for event and on the final error: where a message ends cannot depend on how TCP cut it.
/// `FuzzRegressionTests` replays saved inputs through the same three runs with the same checks.
///
/// Byte by byte is for inputs shorter than `byteByByteLimit` (1 KiB) only: fed one byte at a time, inputs of
/// up to 4 KiB took most of the target's time and held it near 2,000 inputs a second, too slow for 10 million
/// in an hour. 1 KiB still takes a head past its 512-byte limit, or a chunk-size line past its own, byte by
/// byte; longer inputs get the whole and the random-split feedings (whose pieces are mostly 1 to 5 bytes), and
/// `FuzzRegressionTests` replays every saved input byte by byte whatever its length.

/// Small limits, so that inputs of at most 4 KiB (`-max_len=4096`) reach every limit check.
private let fuzzLimits = HTTPParserLimits(maxHeadBytes: 512, maxHeaderCount: 8)
private let fuzzBodyLimit = 64
/// Inputs shorter than this are also fed one byte at a time.
private let byteByByteLimit = 1024

func httpParserFuzz(_ input: [UInt8]) {
    let whole = FuzzRun.feed(input, splits: [input.count])
    if input.count < byteByByteLimit {
        let byteByByte = FuzzRun.feed(input, splits: Array(repeating: 1, count: input.count))
        FuzzRun.require(whole == byteByByte, "whole and byte-by-byte feeding disagree:\n\(whole)\n\(byteByByte)")
    }
    let random = FuzzRun.feed(input, splits: FuzzRun.randomSplits(count: input.count, seed: FuzzRun.hash(input)))
    FuzzRun.require(whole == random, "whole and random-split feeding disagree:\n\(whole)\n\(random)")
}

/// One feeding of an input: what the parser returned, in order, and the error it stopped with.
struct FuzzRun: Equatable, CustomStringConvertible {
    enum Event: Equatable {
        case head(
            method: String, target: String, version: HTTPVersion, fields: [String], keepAlive: Bool, continues: Bool,
            framing: String)
        case body([UInt8])
    }

    var events: [Event] = []
    var error: HTTPParseError?

    var description: String { "events: \(events), error: \(String(describing: error))" }

    /// Appends `input` in pieces of the given lengths, draining the parser after each piece.
    static func feed(_ input: [UInt8], splits: [Int]) -> FuzzRun {
        var run = FuzzRun()
        var parser = HTTPRequestParser(limits: fuzzLimits)
        var offset = 0
        var pendingFraming: HTTPRequestHead.BodyFraming?
        pieces: for length in splits where offset < input.count {
            let end = min(input.count, offset + length)
            parser.append(input[offset..<end])
            offset = end
            while true {
                do {
                    guard let event = try parser.next() else { break }
                    switch event {
                    case .head(let head):
                        require(pendingFraming == nil, "a head followed a head without a body")
                        check(head)
                        pendingFraming = head.framing
                        run.events.append(summary(of: head))
                        try parser.acceptBody(limit: fuzzBodyLimit)
                    case .body(let body):
                        guard let framing = pendingFraming else { fail("a body without a head") }
                        check(body, framing: framing)
                        pendingFraming = nil
                        run.events.append(.body(body))
                    }
                } catch {
                    run.error = error
                    checkSticky(&parser, error)
                    break pieces
                }
            }
            require(parser.bufferedByteCount >= 0 && parser.bufferedByteCount <= offset, "buffered count out of range")
        }
        return run
    }

    // MARK: - Invariants

    /// What the parser promises about a head it returns (RFC 9112 §3, §5, §6).
    private static func check(_ head: HTTPRequestHead) {
        let method = head.method.description.utf8
        require(!method.isEmpty && method.allSatisfy(isToken), "method is not a token")
        require(!head.target.isEmpty && head.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "bad target")
        for field in head.headers {
            require(!field.name.isEmpty && field.name.utf8.allSatisfy(isToken), "field name is not a token")
            require(!field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }, "CR, LF or NUL in value")
            let edges = [field.value.first, field.value.last]
            require(!edges.contains(" ") && !edges.contains("\t"), "untrimmed field value")
        }
        let hosts = head.headers.values("Host")
        require(hosts.count <= 1, "more than one Host")
        require(head.version == .http10 || hosts.count == 1, "HTTP/1.1 without Host")
        require(head.headers.count <= fuzzLimits.maxHeaderCount, "more header fields than the limit")
        let hasLength = head.headers.contains("Content-Length")
        let hasCoding = head.headers.contains("Transfer-Encoding")
        require(!(hasLength && hasCoding), "both Content-Length and Transfer-Encoding")
        switch head.framing {
        case .none:
            require(!hasCoding, "Transfer-Encoding framed as no body")
        case .contentLength(let length):
            require(length > 0 && hasLength, "content-length framing without a positive Content-Length")
        case .chunked:
            require(hasCoding && head.version == .http11, "chunked framing without Transfer-Encoding in 1.1")
            require(head.headers.tokens("Transfer-Encoding") == ["chunked"], "chunked framing with other codings")
        }
        require(!head.path.isEmpty && head.path.first == "/", "path does not start with /")
        require(!head.path.contains("?"), "path holds a query")
        if head.target != "*" {
            let beforeQuery = head.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            require(beforeQuery.hasSuffix(head.path) || head.path == "/", "path is not the target's path")
            let afterQuery = head.target.contains("?") ? head.target.drop { $0 != "?" }.dropFirst() : ""
            require(head.query == afterQuery, "query is not the target's query")
        }
    }

    private static func check(_ body: [UInt8], framing: HTTPRequestHead.BodyFraming) {
        require(body.count <= fuzzBodyLimit, "a completed body exceeds the limit")
        switch framing {
        case .none: require(body.isEmpty, "a body for a request without one")
        case .contentLength(let length): require(body.count == length, "body length differs from Content-Length")
        case .chunked: break
        }
    }

    /// After an error every call throws it again, whatever arrives next.
    private static func checkSticky(_ parser: inout HTTPRequestParser, _ expected: HTTPParseError) {
        for _ in 0..<2 {
            do {
                _ = try parser.next()
                fail("next() returned after \(expected)")
            } catch {
                require(error == expected, "\(error) after \(expected)")
            }
            parser.append([0x0D, 0x0A, 0x0D, 0x0A])
        }
    }

    private static func summary(of head: HTTPRequestHead) -> Event {
        let framing =
            switch head.framing {
            case .none: "none"
            case .contentLength(let length): "length \(length)"
            case .chunked: "chunked"
            }
        return .head(
            method: head.method.description, target: head.target, version: head.version,
            fields: head.headers.map { "\($0.name): \($0.value)" }, keepAlive: head.keepAlive,
            continues: head.expectsContinue, framing: framing)
    }

    // MARK: - Helpers

    /// Piece lengths that add up to at least `count`, mostly short to cut lines and CRLFs apart.
    static func randomSplits(count: Int, seed: UInt64) -> [Int] {
        var state = seed | 1
        var splits: [Int] = []
        var total = 0
        while total < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let length = state % 4 == 0 ? Int((state >> 32) % 64) + 1 : Int((state >> 40) % 5) + 1
            splits.append(length)
            total += length
        }
        return splits
    }

    /// FNV-1a, so that the random splits are a function of the input and a crash replays exactly.
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    /// A trap is how libFuzzer learns of a broken invariant: it then saves the input as `crash-<sha1>`.
    static func fail(_ message: String) -> Never {
        print("invariant violated: \(message)")
        fatalError(message)
    }
}
