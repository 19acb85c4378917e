import GronaReferenceHTTP
import Testing

/// The parser alone, fed every input whole, byte by byte and in every two-piece split: one transcript of all.
@Suite("HTTP request parser")
struct HTTPRequestParserTests {
    enum Transcript: Equatable {
        case request(method: String, target: String, headerCount: Int, body: String)
        case failed(Int)
        case incomplete
    }

    static func transcript(_ pieces: [[UInt8]], limits: HTTPRequestParser.Limits = .init()) -> Transcript {
        var parser = HTTPRequestParser(limits: limits)
        for piece in pieces {
            switch parser.feed(piece) {
            case .needMore, .continueExpected: continue
            case .request(let request):
                return .request(
                    method: request.method, target: request.target, headerCount: request.headers.count,
                    body: String(decoding: request.body, as: UTF8.self))
            case .failed(let error): return .failed(error.status)
            }
        }
        return .incomplete
    }

    /// Whole, byte by byte, and every split in two: all must give the same transcript.
    static func everySplit(_ text: String, limits: HTTPRequestParser.Limits = .init()) -> Transcript? {
        let bytes = Array(text.utf8)
        let whole = transcript([bytes], limits: limits)
        guard transcript(bytes.map { [$0] }, limits: limits) == whole else { return nil }
        for cut in 0...bytes.count {
            guard transcript([Array(bytes[..<cut]), Array(bytes[cut...])], limits: limits) == whole else { return nil }
        }
        return whole
    }

    static let cases: [(String, Transcript)] = [
        ("GET / HTTP/1.1\r\nHost: x\r\n\r\n", .request(method: "GET", target: "/", headerCount: 1, body: "")),
        (
            "POST /clients/7 HTTP/1.1\r\nContent-Length: 19\r\nContent-Type: application/json\r\n\r\n{\"command\":\"flush\"}",
            .request(method: "POST", target: "/clients/7", headerCount: 2, body: "{\"command\":\"flush\"}")
        ),
        (
            "DELETE /clients/1 HTTP/1.0\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
            .request(method: "DELETE", target: "/clients/1", headerCount: 2, body: "")
        ),
        ("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab", .incomplete),
        ("GET / HTTP/1.1\r\nHost: x\r\n", .incomplete),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .failed(501)),
        ("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc", .failed(400)),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .failed(400)),
        ("POST / HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n", .failed(400)),
        ("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", .failed(400)),
        ("POST / HTTP/1.1\r\nContent-Length: 1048577\r\n\r\n", .failed(413)),
        ("GET / HTTP/2.0\r\n\r\n", .failed(505)),
        ("GET / SPDY\r\n\r\n", .failed(400)),
        ("GET  / HTTP/1.1\r\n\r\n", .failed(400)),
        ("GET http://x/ HTTP/1.1\r\n\r\n", .failed(400)),
        ("G(T / HTTP/1.1\r\n\r\n", .failed(400)),
        ("GET / HTTP/1.1\r\nBad Header: x\r\n\r\n", .failed(400)),
        ("GET / HTTP/1.1\r\n: empty name\r\n\r\n", .failed(400)),
        ("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", .failed(400)),
        ("\r\n\r\n", .failed(400)),
        ("\u{16}\u{03}\u{01}\u{02}\u{00}\r\n\r\n", .failed(400)),
    ]

    @Test("whole, byte by byte and in every two-piece split, one transcript", arguments: cases.indices)
    func splits(_ index: Int) {
        let (text, expected) = Self.cases[index]
        #expect(Self.everySplit(text) == expected, "\(text.debugDescription)")
    }

    @Test("a head over the limit is 431, whether or not its end ever comes")
    func headLimit() {
        let limits = HTTPRequestParser.Limits(maxHeadBytes: 64)
        let long = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100)
        #expect(Self.transcript([Array(long.utf8)], limits: limits) == .failed(431))
        #expect(Self.transcript([Array((long + "\r\n\r\n").utf8)], limits: limits) == .failed(431))
        #expect(Self.everySplit(long + "\r\n\r\n", limits: limits) == .failed(431))
        let many = "GET / HTTP/1.1\r\n" + String(repeating: "X: y\r\n", count: 101) + "\r\n"
        #expect(Self.transcript([Array(many.utf8)]) == .failed(431))
    }

    @Test("a body over the limit is refused as soon as its length is read, before any of it")
    func bodyLimit() {
        let limits = HTTPRequestParser.Limits(maxBodyBytes: 10)
        #expect(
            Self.transcript([Array("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n".utf8)], limits: limits)
                == .failed(413))
        #expect(
            Self.transcript([Array("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789".utf8)], limits: limits)
                == .request(method: "POST", target: "/", headerCount: 1, body: "0123456789"))
    }

    @Test("seeded random bytes never crash the parser, and never yield a request without a request line")
    func garbage() {
        var generator = SplitMix64(seed: 30)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 300)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var parser = HTTPRequestParser()
            if case .request(let request) = parser.feed(bytes + Array("\r\n\r\n".utf8)) {
                #expect(request.target.hasPrefix("/"))
            }
        }
    }
}

/// Vigna's SplitMix64: seeded, so a failing input can be reproduced.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
