import GronaMockHTTP
import GronaMockTestSupport
import Testing

@Suite("Router, without sockets")
struct RouterTests {
    private func request(_ method: HTTPMethod, _ target: String) -> HTTPRequest {
        HTTPRequest(
            head: HTTPRequestHead(
                method: method, target: target, version: .http11, headers: ["Host": "x"], keepAlive: true,
                expectsContinue: false, framing: .none))
    }

    @Test("path parameters are bound and percent-decoded")
    func pathParameters() async {
        var router = Router()
        router.on(.get, "/v1/mobile/workspaces/{workspaceKey}/config") { request in
            HTTPResponse.json(request.pathParameters["workspaceKey"] ?? "-")
        }
        let response = await router.respond(to: request(.get, "/v1/mobile/workspaces/acme%2Dmarket/config?x=1"))
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == "acme-market")
    }

    @Test("an unknown path is 404 and a known path with another method is 405 with Allow")
    func notFoundAndNotAllowed() async {
        var router = Router()
        router.on(.get, "/a/{id}") { _ in HTTPResponse() }
        router.on(.delete, "/a/{id}") { _ in HTTPResponse() }
        let missing = await router.respond(to: request(.get, "/b/1"))
        #expect(missing.status == .notFound)
        let wrong = await router.respond(to: request(.post, "/a/1"))
        #expect(wrong.status == .methodNotAllowed)
        #expect(wrong.headers["Allow"] == "GET, HEAD, DELETE")
    }

    @Test("headers added for refusals at a path reach its 404s and 405s, below it too, and keep Allow")
    func refusalHeaders() async {
        var router = Router()
        router.on(.get, "/ui/{file}") { _ in HTTPResponse() }
        router.addHeaders(["X-Frame-Options": "DENY", "Allow": "not this"], toRefusalsAt: "/ui")
        let wrong = await router.respond(to: request(.post, "/ui/app.js"))
        #expect(wrong.status == .methodNotAllowed)
        #expect(wrong.headers["X-Frame-Options"] == "DENY")
        #expect(wrong.headers["Allow"] == "GET, HEAD")
        for path in ["/ui", "/ui/a/b"] {
            let missing = await router.respond(to: request(.get, path))
            #expect(missing.status == .notFound, "\(path)")
            #expect(missing.headers["X-Frame-Options"] == "DENY", "\(path)")
        }
        for path in ["/uix", "/u", "/other/ui"] {
            let elsewhere = await router.respond(to: request(.get, path))
            #expect(elsewhere.headers["X-Frame-Options"] == nil, "\(path)")
        }
        let served = await router.respond(to: request(.get, "/ui/app.js"))
        #expect(served.headers["X-Frame-Options"] == nil)
    }

    @Test("HEAD is served by the GET route")
    func headUsesGet() async {
        var router = Router()
        router.on(.get, "/h") { _ in HTTPResponse.json("{}") }
        #expect(await router.respond(to: request(.head, "/h")).status == .ok)
    }

    @Test("a thrown HTTPError becomes the contract's error body; any other error a generic 500")
    func errors() async {
        struct Unexpected: Error {}
        var router = Router()
        router.on(.get, "/teapot") { _ in
            throw HTTPError(.forbidden, code: ErrorCode("no_tea"), message: "No \"tea\" here.")
        }
        router.on(.get, "/boom") { _ in throw Unexpected() }
        let teapot = await router.respond(to: request(.get, "/teapot"))
        #expect(teapot.status == .forbidden)
        #expect(
            String(decoding: teapot.body, as: UTF8.self) == #"{"error":{"code":"no_tea","message":"No \"tea\" here."}}"#
        )
        let boom = await router.respond(to: request(.get, "/boom"))
        #expect(boom.status.code == 500)
        #expect(String(decoding: boom.body, as: UTF8.self).contains("internal_error"))
    }

    @Test("empty segments and trailing slashes do not match parameters")
    func emptySegments() async {
        var router = Router()
        router.on(.get, "/a/{id}") { _ in HTTPResponse() }
        #expect(await router.respond(to: request(.get, "/a/")).status == .notFound)
        #expect(await router.respond(to: request(.get, "/a/1/")).status == .notFound)
        #expect(await router.respond(to: request(.get, "/a/%zz")).status == .notFound)
    }

    @Test("query items are percent-decoded with + as space")
    func queryItems() {
        let parsed = request(.get, "/e?type=anchor_visible&q=a+b%21&empty=&flag")
        #expect(parsed.query("type") == "anchor_visible")
        #expect(parsed.query("q") == "a b!")
        #expect(parsed.query("empty") == "")
        #expect(parsed.query("flag") == "")
        #expect(parsed.query("missing") == nil)
    }
}
