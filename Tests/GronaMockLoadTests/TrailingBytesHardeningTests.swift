import GronaMockHTTP
import GronaMockPlatform
import Testing

@testable import GronaMockLoad

/// A whole answer followed in the same read by bytes nobody asked for (a stray CRLF after the body, as some
/// servers write): the answer is the server's answer and is delivered; only the connection is not trusted
/// with another request. It used to fail the request as malformed, so a batch the service had stored was
/// sent again.
@Suite struct TrailingBytesHardeningTests {
    @Test(arguments: PollerBackend.allCases)
    func aWholeAnswerWithBytesAfterItIsDeliveredAndTheConnectionNotReused(backend: PollerBackend) throws {
        let server = try ScriptedServer([
            .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok\r\n"),
            .send("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext"),
        ])
        defer { server.stop() }
        let client = try HTTPClientTests.client(server.port, backend: backend)
        let first = HTTPClientTests.get(client)
        #expect(HTTPClientTests.body(first) == "ok")
        #expect(first.status == 200)
        // On a fresh connection: the scripted server answers per connection in order, so the second reply
        // comes whichever connection asks.
        #expect(HTTPClientTests.body(HTTPClientTests.get(client)) == "next")
        #expect(client.inFlight == 0)
    }
}
