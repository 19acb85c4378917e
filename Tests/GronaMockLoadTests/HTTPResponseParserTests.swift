import Testing

@testable import GronaMockLoad

@Suite struct HTTPResponseParserTests {
    static let contentLength = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nETag: \"abc\"\r\n\r\nhello world"
    static let chunked =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nCache-Control: public, max-age=60\r\n\r\n"
        + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n"

    /// Feeds `text` in pieces of the given sizes, keeping what the parser does not consume, as the client does.
    static func parse(_ text: String, splits: [Int]) throws -> HTTPResponseParser {
        var parser = HTTPResponseParser()
        var carry: [UInt8] = []
        var rest = Array(text.utf8)[...]
        var splitIndex = 0
        while !rest.isEmpty && !parser.isComplete {
            let size = max(1, splits.isEmpty ? rest.count : splits[splitIndex % splits.count])
            splitIndex += 1
            carry += rest.prefix(size)
            rest = rest.dropFirst(size)
            let used = try carry.withUnsafeBytes { try parser.parse($0) }
            carry.removeFirst(used)
        }
        return parser
    }

    @Test(arguments: [[], [1], [2, 3, 7], [13, 1, 29]])
    func contentLengthWholeOrSplit(splits: [Int]) throws {
        let parser = try Self.parse(Self.contentLength, splits: splits)
        #expect(parser.isComplete)
        #expect(parser.head.status == 200)
        #expect(parser.head.etag == "\"abc\"")
        #expect(String(decoding: parser.body, as: UTF8.self) == "hello world")
    }

    @Test(arguments: [[], [1], [4, 2], [17, 3, 5]])
    func chunkedWholeOrSplit(splits: [Int]) throws {
        let parser = try Self.parse(Self.chunked, splits: splits)
        #expect(parser.isComplete)
        #expect(parser.head.maxAgeSeconds == 60)
        #expect(String(decoding: parser.body, as: UTF8.self) == "hello world")
    }

    @Test func notModifiedHasNoBodyAndRetryAfterIsRead() throws {
        let parser = try Self.parse("HTTP/1.1 304 Not Modified\r\nRetry-After: 3\r\n\r\n", splits: [])
        #expect(parser.isComplete)
        #expect(parser.head.retryAfterSeconds == 3)
        #expect(parser.body.isEmpty)
    }

    @Test func bodyUntilCloseCompletesOnlyAtTheEnd() throws {
        var parser = try Self.parse("HTTP/1.0 200 OK\r\n\r\npartial", splits: [])
        #expect(!parser.isComplete)
        #expect(!parser.head.keepAlive)
        let whole = parser.endOfStream()
        #expect(whole)
        #expect(String(decoding: parser.body, as: UTF8.self) == "partial")
    }

    @Test func aCutContentLengthBodyIsNotComplete() throws {
        var parser = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nshort", splits: [])
        #expect(!parser.isComplete)
        let whole = parser.endOfStream()
        #expect(!whole)
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 2x0 OK\r\n\r\n",
        "HTTP/2 200 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY",
    ])
    func malformedAnswersAreRefused(text: String) {
        #expect(throws: HTTPResponseParseError.self) { _ = try Self.parse(text, splits: []) }
    }
}
