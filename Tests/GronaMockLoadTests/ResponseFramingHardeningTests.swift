import Foundation
import GronaMockHTTP
import GronaMockPlatform
import Testing

@testable import GronaMockLoad

/// Responses from a server under test that never end or claim what they do not send: every one is given up
/// within a bounded number of bytes, and the poll loop is never held by one connection.
@Suite struct ResponseFramingHardeningTests {
    /// Feeds `unit` after `prefix` until the parser throws or `limit` bytes went in; returns the bytes fed.
    static func feedUntilRefused(prefix: String, unit: String, limit: Int) -> (fed: Int, refused: Bool) {
        var parser = HTTPResponseParser()
        var carry = Array(prefix.utf8)
        let piece = Array(String(repeating: unit, count: max(1, 4096 / unit.utf8.count)).utf8)
        var fed = carry.count
        while fed < limit {
            do {
                let used = try carry.withUnsafeBytes { bytes throws(HTTPResponseParseError) in try parser.parse(bytes) }
                carry.removeFirst(used)
            } catch {
                return (fed, true)
            }
            if parser.isComplete { return (fed, false) }
            carry += piece
            fed += piece.count
        }
        return (fed, false)
    }

    /// Trailers, interim answers and chunk extensions that never end: each used to be read for as long as the
    /// server sent them (a chunk of one byte behind a 1 KiB extension line took 33 GB to reach the body limit).
    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n", "X-Trailer: forever\r\n"),
        ("", "HTTP/1.1 100 Continue\r\n\r\n"),
        (
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            "1;" + String(repeating: "e", count: 1000) + "\r\nx\r\n"
        ),
    ])
    func framingThatNeverEndsIsRefusedWithinBoundedBytes(prefix: String, unit: String) {
        let (fed, refused) = Self.feedUntilRefused(prefix: prefix, unit: unit, limit: 8 * 1024 * 1024)
        #expect(refused)
        #expect(fed <= 4 * HTTPResponseParser.maximumHeadBytes)
    }

    /// A legitimate chunked body in small chunks is still read whole.
    @Test func smallChunksOfAFairBodyAreRead() throws {
        var text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<20_000 { text += "10\r\n0123456789abcdef\r\n" }
        text += "0\r\n\r\n"
        let parser = try HTTPResponseParserTests.parse(text, splits: [65_536])
        #expect(parser.isComplete)
        #expect(parser.body.count == 320_000)
    }

    /// A Content-Length of 32 MiB with nothing behind it must not reserve 32 MiB per connection up front, and
    /// a connection keeps no more than a modest buffer after a large answer.
    @Test func aClaimedLengthReservesNoMoreThanArrives() throws {
        var parser = HTTPResponseParser()
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: \(HTTPResponseParser.maximumBodyBytes)\r\n\r\nab".utf8)
        _ = try head.withUnsafeBytes { bytes throws(HTTPResponseParseError) in try parser.parse(bytes) }
        #expect(parser.body.capacity <= 1024 * 1024)
        let large = "HTTP/1.1 200 OK\r\nContent-Length: 4000000\r\n\r\n" + String(repeating: "x", count: 4_000_000)
        var reused = try HTTPResponseParserTests.parse(large, splits: [65_536])
        #expect(reused.body.count == 4_000_000)
        reused.reset()
        #expect(reused.body.capacity <= 1024 * 1024)
    }

    /// Against a socket that floods chunk lines faster than they are read, the request ends as an answer too
    /// large (its framing outgrew any body it could carry) within the budget, not at its (long) timeout, and not
    /// never.
    @Test(arguments: PollerBackend.allCases)
    func aFloodOfChunkExtensionsEndsAsTooLarge(backend: PollerBackend) throws {
        let server = try FloodServer(
            prefix: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            unit: "1;" + String(repeating: "e", count: 1000) + "\r\nx\r\n")
        defer { server.stop() }
        let outcome = try #require(Self.exchangeOnAThread(port: server.port, backend: backend, within: .seconds(60)))
        guard case .failure(let failure) = outcome else {
            Issue.record("a flood was delivered: \(outcome)")
            return
        }
        #expect(failure == .answerTooLarge)
    }

    /// Runs one GET on a thread of its own (the client is confined to it) with a 5-minute request timeout, and
    /// waits for it at most `within`: nil when it did not finish.
    static func exchangeOnAThread(port: Int, backend: PollerBackend, within: Duration) -> ClientCompletion.Outcome? {
        let done = DispatchSemaphore(value: 0)
        let box = OutcomeBox()
        Thread.detachNewThread {
            guard
                let client = try? HTTPClient(
                    HTTPClient.Configuration(
                        host: "127.0.0.1", port: port, maxConnections: 1, timeout: .seconds(300),
                        pollerBackend: backend))
            else {
                done.signal()
                return
            }
            let completion = HTTPClientTests.get(client)
            box.set(completion.outcome)
            done.signal()
        }
        guard done.wait(timeout: .now() + .seconds(Int(within.components.seconds))) == .success else { return nil }
        return box.get()
    }
}

final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: ClientCompletion.Outcome?
    func set(_ value: ClientCompletion.Outcome) { lock.withLock { outcome = value } }
    func get() -> ClientCompletion.Outcome? { lock.withLock { outcome } }
}
