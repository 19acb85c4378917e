import Dispatch
import GronaMockHTTP
import GronaMockTestSupport
import Testing

/// `Router.exchange`: a request in its wire form answered without a socket, as a connection would answer it.
@Suite("In-process exchange")
struct InProcessExchangeTests {
    private func router() -> Router {
        var router = Router()
        router.on(.post, "/echo", bodyLimit: 8) { request in
            HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: request.body)
        }
        router.on(.get, "/later") { _, responder in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) {
                responder.send(HTTPResponse.json("{\"later\":true}"))
            }
        }
        router.on(.get, "/never") { _, _ in }
        router.check(RouteGroup.prefix("/echo")) { head in
            head.headers["X-Refuse"] == nil ? nil : HTTPError(.forbidden, code: ErrorCode("refused"), message: "No.")
        }
        return router
    }

    @Test("a chunked body is read, routed and echoed")
    func chunked() throws {
        let response = try #require(
            router().exchange(
                Array("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n".utf8))
        )
        #expect(response.status == .ok)
        #expect(response.body == Array("abc".utf8))
    }

    @Test("the route's body limit, the parser's framing rules and head checks apply as on a socket")
    func limits() throws {
        let tooLong = router().exchange(
            Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n123456789".utf8))
        #expect(tooLong?.status == .contentTooLarge)
        let smuggled = router().exchange(
            Array(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                    .utf8))
        #expect(smuggled?.status == .badRequest)
        let refused = router().exchange(
            Array("POST /echo HTTP/1.1\r\nHost: x\r\nX-Refuse: 1\r\nContent-Length: 1\r\n\r\na".utf8))
        #expect(refused?.status == .forbidden)
        let cut = router().exchange(Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab".utf8))
        #expect(cut?.status == .badRequest)
    }

    @Test("an answer sent later from another thread is waited for; none at all gives nil after the timeout")
    func later() throws {
        let later = router().exchange(Array("GET /later HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(later?.status == .ok)
        let never = router().exchange(Array("GET /never HTTP/1.1\r\nHost: x\r\n\r\n".utf8), timeout: .milliseconds(20))
        #expect(never == nil)
    }
}
