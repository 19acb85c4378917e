// Over 400 lines on purpose: RFC 9112 framing case by case (request line, fields, Content-Length, chunked,
// limits), each section a table; split, the sections would hide which framing rule lacks a case.

import GronaMockHTTP
import GronaMockTestSupport
import Testing

// MARK: - Verifier

/// What one feeding of a byte stream produced: every head and body in order, and the error it stopped with.
struct ParserTranscript: Equatable, CustomStringConvertible {
    struct Head: Equatable {
        var method: HTTPMethod
        var target: String
        var path: String
        var query: String
        var version: HTTPVersion
        /// `name: value`, in arrival order, as the parser stored them.
        var fields: [String]
        var keepAlive: Bool
        var expectsContinue: Bool
        var framing: HTTPRequestHead.BodyFraming

        init(_ head: HTTPRequestHead) {
            method = head.method
            target = head.target
            path = String(head.path)
            query = String(head.query)
            version = head.version
            fields = head.headers.map { "\($0.name): \($0.value)" }
            keepAlive = head.keepAlive
            expectsContinue = head.expectsContinue
            framing = head.framing
        }
    }

    enum Event: Equatable {
        case head(Head)
        case body([UInt8])
    }

    var events: [Event] = []
    var error: HTTPParseError?

    var heads: [Head] {
        events.compactMap { if case .head(let head) = $0 { head } else { nil } }
    }

    /// The bodies as UTF-8 text.
    var bodies: [String] {
        events.compactMap { if case .body(let body) = $0 { String(decoding: body, as: UTF8.self) } else { nil } }
    }

    var description: String {
        let shown = events.map { event in
            switch event {
            case .head(let head): "head(\(head.method) \(head.target))"
            case .body(let body): "body(\(body.count) bytes)"
            }
        }
        return "\(shown) error: \(error.map { "\($0)" } ?? "none")"
    }
}

/// Feeds a request stream to `HTTPRequestParser` whole, byte by byte, in every two-piece split (short inputs)
/// and in seeded random splits, and expects the same transcript from all of them, as swift-nio's
/// `ByteToMessageDecoderVerifier` does: where a message ends cannot depend on how TCP cut the bytes.
/// Every feeding also checks what must hold whatever the input (body sizes, error stickiness).
enum ParserVerifier {
    enum Feeding: CustomStringConvertible {
        case whole
        case byteByByte
        case pieces([Int])
        case random(seed: UInt64)

        var description: String {
            switch self {
            case .whole: "whole"
            case .byteByByte: "byte by byte"
            case .pieces(let lengths): "pieces \(lengths)"
            case .random(let seed): "random splits (seed \(seed))"
            }
        }

        func lengths(count: Int) -> [Int] {
            switch self {
            case .whole: [count]
            case .byteByByte: Array(repeating: 1, count: count)
            case .pieces(let lengths): lengths
            case .random(let seed): ParserVerifier.randomSplits(count: count, seed: seed)
            }
        }
    }

    /// Runs every feeding, expects them to agree, and returns the transcript of the whole feeding.
    @discardableResult
    static func verify(
        _ input: String, limits: HTTPParserLimits = HTTPParserLimits(), bodyLimit: Int = 1 << 20,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ParserTranscript {
        verify(Array(input.utf8), limits: limits, bodyLimit: bodyLimit, sourceLocation: sourceLocation)
    }

    @discardableResult
    static func verify(
        _ input: [UInt8], limits: HTTPParserLimits = HTTPParserLimits(), bodyLimit: Int = 1 << 20,
        randomSeeds: [UInt64] = [0x5EED, 42, 7], sourceLocation: SourceLocation = #_sourceLocation
    ) -> ParserTranscript {
        var feedings: [Feeding] = [.byteByByte]
        feedings += randomSeeds.map { .random(seed: $0) }
        if input.count <= 512 {
            feedings += (1..<max(1, input.count)).map { .pieces([$0, input.count - $0]) }
        }
        let reference = feed(input, .whole, limits: limits, bodyLimit: bodyLimit, sourceLocation: sourceLocation)
        for feeding in feedings {
            let transcript = feed(input, feeding, limits: limits, bodyLimit: bodyLimit, sourceLocation: sourceLocation)
            guard transcript == reference else {
                Issue.record(
                    "fed \(feeding), the parser gave \(transcript); fed whole, \(reference)",
                    sourceLocation: sourceLocation)
                break
            }
        }
        return reference
    }

    /// Appends the input in pieces, draining the parser after each, calling `acceptBody` after every head.
    static func feed(
        _ input: [UInt8], _ feeding: Feeding, limits: HTTPParserLimits, bodyLimit: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ParserTranscript {
        var transcript = ParserTranscript()
        var parser = HTTPRequestParser(limits: limits)
        var offset = 0
        var framing: HTTPRequestHead.BodyFraming?
        pieces: for length in feeding.lengths(count: input.count) where offset < input.count {
            let end = min(input.count, offset + length)
            parser.append(input[offset..<end])
            offset = end
            while true {
                do {
                    guard let event = try parser.next() else { break }
                    switch event {
                    case .head(let head):
                        #expect(framing == nil, "two heads without a body between", sourceLocation: sourceLocation)
                        framing = head.framing
                        if case .whole = feeding {
                            // The other feedings must give the same heads; one report per broken promise.
                            expectWellFormed(head, limits: limits, sourceLocation: sourceLocation)
                        }
                        transcript.events.append(.head(ParserTranscript.Head(head)))
                        try parser.acceptBody(limit: bodyLimit)
                    case .body(let body):
                        #expect(body.count <= bodyLimit, "a body over the limit", sourceLocation: sourceLocation)
                        if case .contentLength(let length) = framing {
                            #expect(body.count == length, sourceLocation: sourceLocation)
                        } else if framing == HTTPRequestHead.BodyFraming.none {
                            #expect(body.isEmpty, sourceLocation: sourceLocation)
                        }
                        framing = nil
                        transcript.events.append(.body(body))
                    }
                } catch {
                    transcript.error = error
                    expectSticky(&parser, error, sourceLocation: sourceLocation)
                    break pieces
                }
            }
        }
        return transcript
    }

    /// What the parser promises about any head it returns (RFC 9112 §3, §5, §6), the fuzz target's checks.
    private static func expectWellFormed(
        _ head: HTTPRequestHead, limits: HTTPParserLimits, sourceLocation: SourceLocation
    ) {
        let tokenBytes = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        #expect(head.method.description.utf8.allSatisfy(tokenBytes.contains), sourceLocation: sourceLocation)
        #expect(head.headers.count <= limits.maxHeaderCount, sourceLocation: sourceLocation)
        for field in head.headers {
            #expect(
                !field.name.isEmpty && field.name.utf8.allSatisfy(tokenBytes.contains), sourceLocation: sourceLocation)
            #expect(!field.value.utf8.contains { $0 < 0x20 && $0 != 0x09 }, sourceLocation: sourceLocation)
        }
        let hosts = head.headers.values("Host").count
        #expect(hosts == 1 || (hosts == 0 && head.version == .http10), sourceLocation: sourceLocation)
        let hasLength = head.headers.contains("Content-Length")
        let hasCoding = head.headers.contains("Transfer-Encoding")
        #expect(!(hasLength && hasCoding), sourceLocation: sourceLocation)
        if head.framing == .chunked {
            #expect(head.headers.tokens("Transfer-Encoding") == ["chunked"], sourceLocation: sourceLocation)
        }
        // The path is the target's, up to the query, and never part of the query.
        #expect(head.path.first == "/" && !head.path.contains("?"), sourceLocation: sourceLocation)
        if head.target != "*" {
            let beforeQuery = head.target.prefix { $0 != "?" }
            #expect(beforeQuery.hasSuffix(head.path) || head.path == "/", sourceLocation: sourceLocation)
        }
    }

    /// After an error, every later `next()` throws it again, even when valid bytes follow.
    private static func expectSticky(
        _ parser: inout HTTPRequestParser, _ expected: HTTPParseError, sourceLocation: SourceLocation
    ) {
        for _ in 0..<2 {
            #expect(throws: expected, sourceLocation: sourceLocation) { _ = try parser.next() }
            parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        }
    }

    /// Piece lengths adding up to at least `count`, mostly 1 to 5 bytes so that lines and CRLFs are cut apart.
    /// The same generator as `Tests/Fuzz/HTTPRequestParserFuzzer.swift`, so a fuzz input replays exactly.
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

    /// FNV-1a, the fuzz target's seed for its random splits.
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }
}

// MARK: - Accepted requests

@Suite("HTTPRequestParser: requests it accepts")
struct HTTPRequestParserTests {
    @Test("a simple GET: method, target, version, fields in order, keep-alive, no body")
    func simpleGet() {
        let transcript = ParserVerifier.verify(
            "GET /v1/config HTTP/1.1\r\nHost: localhost:8080\r\nAccept: */*\r\nX-Empty:\r\nX-Padded: \t a b \t\r\n\r\n")
        #expect(transcript.error == nil)
        #expect(transcript.events.count == 2)
        let head = transcript.heads.first
        #expect(head?.method == .get)
        #expect(head?.target == "/v1/config")
        #expect(head?.version == .http11)
        #expect(head?.fields == ["Host: localhost:8080", "Accept: */*", "X-Empty: ", "X-Padded: a b"])
        #expect(head?.keepAlive == true)
        #expect(head?.expectsContinue == false)
        #expect(head?.framing == HTTPRequestHead.BodyFraming.none)
        #expect(transcript.bodies == [""])
    }

    @Test("header lookup is case-insensitive and keeps repeated fields in order")
    func headerLookup() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("GET / HTTP/1.1\r\nhost: a\r\nX-Tag: 1\r\nx-tag: 2\r\n\r\n".utf8))
        guard case .head(let head) = try parser.next() else {
            Issue.record("no head")
            return
        }
        #expect(head.headers["HOST"] == "a")
        #expect(head.headers.values("X-TAG") == ["1", "2"])
    }

    @Test("an incomplete head yields nothing yet, and the parser knows it is inside a request")
    func incompleteHead() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("\r\n".utf8))
        #expect(try parser.next() == nil)
        #expect(!parser.isInsideRequest)
        parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8))
        #expect(try parser.next() == nil)
        #expect(parser.isInsideRequest)
        let transcript = ParserVerifier.verify("GET / HTTP/1.1\r\nHost: a\r\n\r")
        #expect(transcript.events.isEmpty)
        #expect(transcript.error == nil)
    }

    @Test(
        "keep-alive: on by default in 1.1, off by default in 1.0, as Connection says otherwise",
        arguments: [
            ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", false),
        ])
    func keepAlive(request: String, keepAlive: Bool) {
        let transcript = ParserVerifier.verify(request)
        #expect(transcript.error == nil)
        #expect(transcript.heads.map(\.keepAlive) == [keepAlive])
    }

    @Test("HTTP/1.0 needs no Host and is reported as 1.0")
    func http10() {
        let transcript = ParserVerifier.verify("GET /old HTTP/1.0\r\nUser-Agent: x\r\n\r\n")
        #expect(transcript.error == nil)
        #expect(transcript.heads.map(\.version) == [.http10])
    }

    @Test("pipelined requests in one buffer come out in order, each body its own")
    func pipelined() {
        let transcript = ParserVerifier.verify(
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                + "PUT /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                + "\r\n"
                + "DELETE /d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(transcript.error == nil)
        #expect(transcript.heads.map(\.method) == [.get, .post, .put, .delete])
        #expect(transcript.heads.map(\.path) == ["/a", "/b", "/c", "/d"])
        #expect(transcript.heads.map(\.keepAlive) == [true, true, true, false])
        #expect(transcript.bodies == ["", "hello", "abc", ""])
    }

    @Test("a Content-Length body is read exactly, and what follows is the next request")
    func contentLengthBody() {
        let transcript = ParserVerifier.verify(
            "POST /v1/events HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world"
                + "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /partial HTTP/1.1\r\n")
        #expect(transcript.error == nil)
        #expect(transcript.heads.first?.framing == .contentLength(11))
        #expect(transcript.bodies == ["hello world", ""])
    }

    @Test(
        "Content-Length forms that all mean one length",
        arguments: [
            ("Content-Length: 5", 5),
            ("Content-Length: 5\r\nContent-Length: 5", 5),
            ("Content-Length: 5, 5", 5),
            ("Content-Length: 0005", 5),
            ("Content-Length: 0000000000000000000000005\r\nContent-Length: 5", 5),
            ("Content-Length: 0", 0),
        ])
    func contentLengthForms(field: String, length: Int) {
        let body = String(repeating: "x", count: length)
        let transcript = ParserVerifier.verify("POST / HTTP/1.1\r\nHost: a\r\n\(field)\r\n\r\n\(body)")
        #expect(transcript.error == nil)
        let framing: HTTPRequestHead.BodyFraming = length == 0 ? .none : .contentLength(length)
        #expect(transcript.heads.map(\.framing) == [framing])
        #expect(transcript.bodies == [body])
    }

    @Test("a chunked body with extensions, upper-case hex and trailers is reassembled; trailers are dropped")
    func chunkedBody() {
        let transcript = ParserVerifier.verify(
            "POST /e HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n"
                + "1 ; quoted=\"a b\"\r\n \r\n"
                + "A\r\n0123456789\r\n"
                + "000\r\nX-Trailer: yes\r\nX-Other: 1\r\n\r\n"
                + "GET /next HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(transcript.error == nil)
        #expect(transcript.heads.map(\.framing) == [.chunked, .none])
        #expect(transcript.heads.first?.fields == ["Host: a", "Transfer-Encoding: Chunked"])
        #expect(transcript.bodies == ["hello 0123456789", ""])
    }

    @Test("a chunked body with no data chunks is empty")
    func emptyChunkedBody() {
        let transcript = ParserVerifier.verify(
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(transcript.error == nil)
        #expect(transcript.bodies == [""])
    }

    @Test("Expect: 100-continue: the head comes out before any of the body has arrived")
    func expectContinue() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\n".utf8))
        guard case .head(let head) = try parser.next() else {
            Issue.record("no head")
            return
        }
        #expect(head.expectsContinue)
        try parser.acceptBody(limit: 10)
        #expect(try parser.next() == nil)
        parser.append(Array("abc".utf8))
        guard case .body(let body) = try parser.next() else {
            Issue.record("no body")
            return
        }
        #expect(body == Array("abc".utf8))

        let transcript = ParserVerifier.verify(
            "PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc"
                + "PUT /y HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nz")
        #expect(transcript.error == nil)
        // RFC 9110 §10.1.1: an HTTP/1.0 client never waits for 100, so the expectation is ignored.
        #expect(transcript.heads.map(\.expectsContinue) == [true, false])
        #expect(transcript.bodies == ["abc", "z"])
    }

    @Test("the body waits for acceptBody: next() returns nil after a head until it is called")
    func bodyWaitsForAcceptBody() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok".utf8))
        guard case .head = try parser.next() else {
            Issue.record("no head")
            return
        }
        #expect(try parser.next() == nil)
        #expect(parser.bufferedByteCount == 2)
        try parser.acceptBody(limit: 2)
        guard case .body(let body) = try parser.next() else {
            Issue.record("no body")
            return
        }
        #expect(body == Array("ok".utf8))
    }

    @Test("HEAD has no body")
    func head() {
        let transcript = ParserVerifier.verify("HEAD /h HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(transcript.error == nil)
        #expect(transcript.heads.map(\.method) == [.head])
        #expect(transcript.bodies == [""])
    }

    @Test("an unknown method token is kept for the router to answer 405")
    func otherMethod() {
        let transcript = ParserVerifier.verify("PROPFIND /p HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(transcript.heads.map(\.method) == [.other("PROPFIND")])
    }

    @Test(
        "targets split into path and query: origin, absolute and asterisk forms",
        arguments: [
            ("/", "/", ""),
            ("/a/b?x=1&y=2", "/a/b", "x=1&y=2"),
            ("/a?", "/a", ""),
            ("/a?b?c", "/a", "b?c"),
            ("/v1/mobile/workspaces/acme%2Dmarket/config", "/v1/mobile/workspaces/acme%2Dmarket/config", ""),
            ("http://example.com:8080/v1/config?w=1", "/v1/config", "w=1"),
            ("https://example.com/", "/", ""),
            ("http://example.com", "/", ""),
            ("http://example.com?next=/admin", "/", "next=/admin"),
            ("*", "/", ""),
        ])
    func targetForms(target: String, path: String, query: String) {
        let method = target == "*" ? "OPTIONS" : "GET"
        let transcript = ParserVerifier.verify("\(method) \(target) HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(transcript.error == nil)
        #expect(transcript.heads.map(\.target) == [target])
        #expect(transcript.heads.map(\.path) == [path])
        #expect(transcript.heads.map(\.query) == [query])
    }

    @Test("empty lines before a request line are ignored (RFC 9112 §2.2)")
    func leadingEmptyLines() {
        let transcript = ParserVerifier.verify(
            "\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(transcript.error == nil)
        #expect(transcript.heads.map(\.path) == ["/", "/2"])
    }

    @Test("a field value may carry obs-text (bytes 0x80 and up) and tabs")
    func obsText() {
        var input = Array("GET / HTTP/1.1\r\nHost: a\r\nX-Name: caf".utf8)
        input += [0xC3, 0xA9, 0x09, 0x41]
        input += Array("\r\n\r\n".utf8)
        let transcript = ParserVerifier.verify(input)
        #expect(transcript.error == nil)
        #expect(transcript.heads.first?.fields.last == "X-Name: caf\u{E9}\tA")
    }

    @Test("limits are inclusive: a 16 KiB head, 100 fields and a body of exactly the limit are accepted")
    func limitsInclusive() {
        let prefix = "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: "
        let padding = String(repeating: "p", count: 16 * 1024 - prefix.utf8.count - 4)
        let largest = ParserVerifier.verify(prefix + padding + "\r\n\r\n")
        #expect(largest.error == nil)
        #expect(largest.heads.count == 1)

        let fields = (1..<100).map { "X-\($0): v\r\n" }.joined()
        let many = ParserVerifier.verify("GET / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n")
        #expect(many.error == nil)
        #expect(many.heads.first?.fields.count == 100)

        let exact = ParserVerifier.verify(
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789"
                + "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4\r\n0123\r\n6\r\n456789\r\n0\r\n\r\n",
            bodyLimit: 10)
        #expect(exact.error == nil)
        #expect(exact.bodies == ["0123456789", "0123456789"])
    }
}

// MARK: - Rejections

/// One request the parser must refuse, with the exact error and the events it yields before refusing.
struct ParserRejection: Sendable, CustomTestStringConvertible {
    var name: String
    var request: String
    var error: HTTPParseError
    var status: Int
    /// 0 when the head itself is refused, 1 when the head is returned and its body is refused.
    var eventsBefore = 0
    var bodyLimit = 1 << 20

    var testDescription: String { name }

    static let get = "GET / HTTP/1.1\r\nHost: a\r\n"
    static let chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"

    static func bad(_ name: String, _ request: String, _ reason: String, eventsBefore: Int = 0) -> Self {
        Self(name: name, request: request, error: .badRequest(reason), status: 400, eventsBefore: eventsBefore)
    }

    static func post(_ fields: String) -> String { "POST / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n\r\n" }

    static let all: [Self] = framing + size + syntax + semantics + chunking

    static let framing: [Self] = [
        bad(
            "Content-Length and Transfer-Encoding", post("Content-Length: 3\r\nTransfer-Encoding: chunked") + "abc",
            "both Content-Length and Transfer-Encoding"),
        bad(
            "Transfer-Encoding and Content-Length", post("Transfer-Encoding: chunked\r\nContent-Length: 3"),
            "both Content-Length and Transfer-Encoding"),
        bad("Content-Length with letters", post("Content-Length: 1a"), "an invalid Content-Length"),
        bad("Content-Length in hex", post("Content-Length: 0x10"), "an invalid Content-Length"),
        bad("negative Content-Length", post("Content-Length: -5"), "an invalid Content-Length"),
        bad("Content-Length with a plus sign", post("Content-Length: +5"), "an invalid Content-Length"),
        bad("empty Content-Length", post("Content-Length:"), "an invalid Content-Length"),
        bad("Content-Length with an empty element", post("Content-Length: 5,"), "an invalid Content-Length"),
        bad("Content-Length with inner space", post("Content-Length: 5 5"), "an invalid Content-Length"),
        bad(
            "conflicting Content-Length fields", post("Content-Length: 5\r\nContent-Length: 6"),
            "conflicting Content-Length values"),
        bad("conflicting Content-Length list", post("Content-Length: 5, 6"), "conflicting Content-Length values"),
        bad(
            "chunked not last", post("Transfer-Encoding: chunked, gzip"), "chunked is not the final transfer coding"),
        bad(
            "chunked not last, across fields", post("Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip"),
            "chunked is not the final transfer coding"),
        bad("empty Transfer-Encoding", post("Transfer-Encoding:"), "chunked is not the final transfer coding"),
        bad("chunked twice", post("Transfer-Encoding: chunked, chunked"), "chunked applied more than once"),
        bad(
            "chunked twice, across fields", post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked"),
            "chunked applied more than once"),
        Self(
            name: "gzip alone", request: post("Transfer-Encoding: gzip"),
            error: .notImplemented("transfer codings other than chunked"), status: 501),
        Self(
            name: "gzip then chunked", request: post("Transfer-Encoding: gzip, chunked"),
            error: .notImplemented("transfer codings other than chunked"), status: 501),
        bad(
            "Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "Transfer-Encoding in an HTTP/1.0 request"),
    ]

    static let size: [Self] = [
        Self(
            name: "head over 16 KiB",
            request: "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: \(String(repeating: "p", count: 16 * 1024 - 35))\r\n\r\n",
            error: .headerFieldsTooLarge("request line and headers exceed 16384 bytes"), status: 431),
        Self(
            name: "head over 16 KiB with no end in sight",
            request: "GET /\(String(repeating: "a", count: 20 * 1024))",
            error: .headerFieldsTooLarge("request line and headers exceed 16384 bytes"), status: 431),
        Self(
            name: "101 header fields",
            request: get + (1...100).map { "X-\($0): v\r\n" }.joined() + "\r\n",
            error: .headerFieldsTooLarge("more than 100 header fields"), status: 431),
        Self(
            name: "Content-Length over the body limit", request: post("Content-Length: 11") + "hello world",
            error: .contentTooLarge(limit: 10), status: 413, eventsBefore: 1, bodyLimit: 10),
        Self(
            name: "Content-Length beyond Int.max", request: post("Content-Length: 99999999999999999999999"),
            error: .contentTooLarge(limit: 1 << 20), status: 413, eventsBefore: 1),
        Self(
            name: "chunked body over the body limit", request: chunked + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
            error: .contentTooLarge(limit: 10), status: 413, eventsBefore: 1, bodyLimit: 10),
        Self(
            name: "chunk size beyond Int.max", request: chunked + "fffffffffffffffffffff\r\n",
            error: .contentTooLarge(limit: 1 << 20), status: 413, eventsBefore: 1),
        Self(
            name: "trailer section over 16 KiB",
            request: chunked + "0\r\nX-Trailer: \(String(repeating: "t", count: 16 * 1024))\r\n\r\n",
            error: .headerFieldsTooLarge("trailer section exceeds 16384 bytes"), status: 431, eventsBefore: 1),
        Self(
            name: "trailer section over 16 KiB in many lines",
            request: chunked + "0\r\n"
                + String(repeating: "X-T: \(String(repeating: "t", count: 1000))\r\n", count: 17),
            error: .headerFieldsTooLarge("trailer section exceeds 16384 bytes"), status: 431, eventsBefore: 1),
        Self(
            name: "101 trailer fields",
            request: chunked + "0\r\n" + String(repeating: "X-T: v\r\n", count: 101) + "\r\n",
            error: .headerFieldsTooLarge("more than 100 trailer fields"), status: 431, eventsBefore: 1),
        Self(
            name: "chunk size line over 16 KiB",
            request: chunked + "1;ext=\(String(repeating: "e", count: 16 * 1024))\r\n",
            error: .headerFieldsTooLarge("chunk size line exceeds 16384 bytes"), status: 431, eventsBefore: 1),
    ]

    static let syntax: [Self] = [
        bad("obs-fold", get + "X-Folded: a\r\n b\r\n\r\n", "obsolete line folding is not accepted"),
        bad("obs-fold with a tab", get + "X-Folded: a\r\n\tb\r\n\r\n", "obsolete line folding is not accepted"),
        bad(
            "space before the colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
            "a field name is not a token (or has whitespace before the colon)"),
        bad(
            "tab before the colon", get + "X-A\t: b\r\n\r\n",
            "a field name is not a token (or has whitespace before the colon)"),
        bad(
            "empty field name", get + ": b\r\n\r\n",
            "a field name is not a token (or has whitespace before the colon)"),
        bad("field line without a colon", get + "NoColon\r\n\r\n", "a field line has no colon"),
        bad(
            "bare CR in the header section", "GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n",
            "a bare CR or LF in the header section"),
        bad(
            "bare CR after the request line", "GET / HTTP/1.1\rHost: a\r\n\r\n",
            "a bare CR or LF in the header section"),
        bad(
            "bare LF in the header section", "GET / HTTP/1.1\nHost: a\r\n\r\n",
            "a bare LF in the header section (lines end with CRLF)"),
        bad(
            "bare LF line endings", "GET / HTTP/1.1\nHost: a\n\r\n\r\n",
            "a bare LF in the header section (lines end with CRLF)"),
        // Nothing more will come: the verdict must not wait for a CRLFCRLF (it used to end in a 408).
        bad(
            "a head ended by bare LF alone", "GET / HTTP/1.1\nHost: a\n\n",
            "a bare LF in the header section (lines end with CRLF)"),
        bad(
            "a bare LF before the request line", "\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
            "a bare LF in the header section (lines end with CRLF)"),
        bad("NUL in a field value", get + "X: a\u{0}b\r\n\r\n", "a field value holds a control character"),
        bad("SOH in a field value", get + "X: a\u{1}b\r\n\r\n", "a field value holds a control character"),
        bad("ESC in a field value", get + "X: \u{1B}[31m\r\n\r\n", "a field value holds a control character"),
        bad("DEL in a field value", get + "X: a\u{7F}\r\n\r\n", "a field value holds a control character"),
        Self(
            name: "HTTP/2.0", request: "GET / HTTP/2.0\r\nHost: a\r\n\r\n", error: .versionNotSupported("HTTP/2.0"),
            status: 505),
        Self(
            name: "HTTP/0.9", request: "GET / HTTP/0.9\r\nHost: a\r\n\r\n", error: .versionNotSupported("HTTP/0.9"),
            status: 505),
        bad("version HTTP/1.x", "GET / HTTP/1.x\r\nHost: a\r\n\r\n", "the HTTP version is not HTTP/DIGIT.DIGIT"),
        bad("version HTTP/11", "GET / HTTP/11\r\nHost: a\r\n\r\n", "the HTTP version is not HTTP/DIGIT.DIGIT"),
        bad("lower-case version", "GET / http/1.1\r\nHost: a\r\n\r\n", "the HTTP version is not HTTP/DIGIT.DIGIT"),
        bad(
            "version with a trailing space", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n",
            "the HTTP version is not HTTP/DIGIT.DIGIT"),
        bad("garbage version", "GET / FOO\r\nHost: a\r\n\r\n", "the HTTP version is not HTTP/DIGIT.DIGIT"),
        bad("no version", "GET /\r\nHost: a\r\n\r\n", "the request line is not METHOD SP TARGET SP VERSION"),
        bad("method with a parenthesis", "GE(T / HTTP/1.1\r\nHost: a\r\n\r\n", "the method is not a token"),
        bad("method with a quote", "G\"T / HTTP/1.1\r\nHost: a\r\n\r\n", "the method is not a token"),
        bad("empty method", " / HTTP/1.1\r\nHost: a\r\n\r\n", "the method is not a token"),
        bad(
            "two spaces before the target", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
            "the request target is empty or holds a space, control or non-ASCII byte"),
        bad(
            "a target that is not a path", "GET index.html HTTP/1.1\r\nHost: a\r\n\r\n",
            "the request target is neither a path, an absolute URI nor *"),
    ]

    static let semantics: [Self] = [
        bad(
            "HTTP/1.1 without Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", "an HTTP/1.1 request without a Host field"
        ),
        bad("two Host fields", get + "Host: b\r\n\r\n", "more than one Host field"),
        bad("Host with a space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", "an invalid Host field"),
        bad("Host with a slash", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", "an invalid Host field"),
        bad("Host with userinfo", "GET / HTTP/1.1\r\nHost: user@a\r\n\r\n", "an invalid Host field"),
        bad("bad Host in HTTP/1.0", "GET / HTTP/1.0\r\nHost: a b\r\n\r\n", "an invalid Host field"),
        Self(
            name: "Expect other than 100-continue", request: get + "Expect: something\r\n\r\n",
            error: .expectationFailed("something"), status: 417),
        Self(
            name: "Expect with 100-continue and another", request: get + "Expect: 100-continue, x-more\r\n\r\n",
            error: .expectationFailed("x-more"), status: 417),
    ]

    static let chunking: [Self] = [
        bad("chunk size not hex", chunked + "zz\r\n", "a chunk size is not hexadecimal", eventsBefore: 1),
        bad("empty chunk size", chunked + "\r\n", "a chunk size is not hexadecimal", eventsBefore: 1),
        bad("negative chunk size", chunked + "-1\r\n", "a chunk size is not hexadecimal", eventsBefore: 1),
        bad(
            "chunk size with 0x", chunked + "0x5\r\nhello\r\n",
            "a chunk size is followed by something other than an extension", eventsBefore: 1),
        bad(
            "chunk size with trailing space", chunked + "5 \r\nhello\r\n",
            "a chunk size is followed by something other than an extension", eventsBefore: 1),
        bad(
            "control byte in a chunk extension", chunked + "5;a\u{1}\r\nhello\r\n",
            "a chunk extension holds a control character", eventsBefore: 1),
        bad("bare LF after a chunk size", chunked + "5\nhello\r\n", "bare LF in chunk size line", eventsBefore: 1),
        bad("bare CR after a chunk size", chunked + "5\rhello\r\n", "bare CR in chunk size line", eventsBefore: 1),
        bad(
            "chunk data longer than its size", chunked + "5\r\nhelloXX\r\n0\r\n\r\n",
            "chunk data is not followed by CRLF", eventsBefore: 1),
        bad(
            "chunk data ended by a bare LF", chunked + "5\r\nhello\n0\r\n\r\n", "chunk data is not followed by CRLF",
            eventsBefore: 1),
        bad(
            "obs-fold in the trailers", chunked + "0\r\nX-T: a\r\n b\r\n\r\n", "obsolete line folding is not accepted",
            eventsBefore: 1),
        bad("bare LF in the trailers", chunked + "0\r\nX-T: a\n\r\n", "bare LF in trailer section", eventsBefore: 1),
    ]
}

@Suite("HTTPRequestParser: requests it refuses")
struct HTTPRequestParserRejectionTests {
    @Test(
        "each malformed or oversized request is refused with its exact error and status", arguments: ParserRejection.all
    )
    func rejects(_ row: ParserRejection) {
        let transcript = ParserVerifier.verify(row.request, bodyLimit: row.bodyLimit)
        #expect(transcript.error == row.error)
        #expect(transcript.error?.status.code == row.status)
        #expect(transcript.events.count == row.eventsBefore)
    }

    @Test("a Content-Length over the limit is refused at acceptBody, before any body byte arrives")
    func contentLengthRefusedEarly() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n".utf8))
        guard case .head = try parser.next() else {
            Issue.record("no head")
            return
        }
        #expect(parser.bufferedByteCount == 0)
        #expect(throws: HTTPParseError.contentTooLarge(limit: 10)) { try parser.acceptBody(limit: 10) }
        #expect(throws: HTTPParseError.contentTooLarge(limit: 10)) { try parser.next() }
    }

    @Test("a chunked body is refused at the chunk size that passes the limit, before that chunk's data")
    func chunkedRefusedEarly() throws {
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n"
        var within = HTTPRequestParser()
        within.append(Array(head.utf8))
        _ = try within.next()
        try within.acceptBody(limit: 11)
        #expect(try within.next() == nil)

        var over = HTTPRequestParser()
        over.append(Array(head.utf8))
        _ = try over.next()
        try over.acceptBody(limit: 10)
        #expect(throws: HTTPParseError.contentTooLarge(limit: 10)) { try over.next() }
    }

    @Test("an error is sticky: next() throws it again, even after a valid request arrives")
    func stickyError() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("GET / HTTP/1.1\r\nHost : a\r\n\r\n".utf8))
        let expected = HTTPParseError.badRequest("a field name is not a token (or has whitespace before the colon)")
        #expect(throws: expected) { try parser.next() }
        #expect(throws: expected) { try parser.next() }
        parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        #expect(throws: expected) { try parser.next() }
        try parser.acceptBody(limit: 10)
        #expect(throws: expected) { try parser.next() }
    }

    @Test("each error maps to its status and stable code")
    func statusesAndCodes() {
        let cases: [(HTTPParseError, Int, String)] = [
            (.badRequest("x"), 400, "bad_request"),
            (.headerFieldsTooLarge("x"), 431, "header_fields_too_large"),
            (.contentTooLarge(limit: 1), 413, "payload_too_large"),
            (.notImplemented("x"), 501, "not_implemented"),
            (.expectationFailed("x"), 417, "expectation_failed"),
            (.versionNotSupported("x"), 505, "http_version_not_supported"),
        ]
        for (error, status, code) in cases {
            #expect(error.status.code == status)
            #expect(error.code.rawValue == code)
        }
    }
}
