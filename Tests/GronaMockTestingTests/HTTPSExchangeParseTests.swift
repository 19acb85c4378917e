#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import Testing

@testable import GronaMockTesting

/// The Linux test kit's reading of an HTTPS answer: a cut answer is an error, never a short success, and no
/// number in the answer can trap.
@Suite("Test kit HTTPS answers")
struct HTTPSExchangeParseTests {
    /// What was cut, the bytes read, and whether the server still ended with close_notify: an answer shorter
    /// than its own framing is cut either way.
    static let cut: [(String, String, Bool)] = [
        ("shorter than its Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true),
        ("chunked without its last chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n", true),
        (
            "a chunk size near Int.max", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\nab",
            true
        ),
        ("a head cut before its blank line", "HTTP/1.1 200 OK\r\nContent-Len", false),
    ]

    @Test("a cut answer fails with networkConnectionLost", arguments: cut)
    func cutAnswer(_ row: (String, String, Bool)) {
        #expect(throws: URLError(.networkConnectionLost), "\(row.0)") {
            try HTTPSExchange.parse(Array(row.1.utf8), isHead: false, endedCleanly: row.2)
        }
    }

    @Test("a body read to the close is whole with close_notify, and cut without it")
    func closeDelimited() throws {
        let answer = Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello".utf8)
        #expect(try HTTPSExchange.parse(answer, isHead: false, endedCleanly: true).body == Array("hello".utf8))
        #expect(throws: URLError(.networkConnectionLost)) {
            try HTTPSExchange.parse(answer, isHead: false, endedCleanly: false)
        }
    }

    @Test("a Content-Length answer is taken by its length, and a 304 has no body")
    func framed() throws {
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA".utf8)
        #expect(try HTTPSExchange.parse(answer, isHead: false).body == Array("ok".utf8))
        let notModified = Array("HTTP/1.1 304 Not Modified\r\nETag: \"1\"\r\n\r\n".utf8)
        #expect(try HTTPSExchange.parse(notModified, isHead: false).status == 304)
    }
}
#endif
