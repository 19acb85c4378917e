import GronaMockHTTP
import GronaMockTestSupport
import Testing

/// What a route group's middleware hands to the handlers behind it: the route's pattern, stamped by the
/// router, and typed attachments.
@Suite("Request route and attachments")
struct RequestAttachmentTests {
    private struct Tag: Sendable, Equatable {
        var name: String
    }

    private struct Other: Sendable {
        var count: Int
    }

    private func request(_ method: HTTPMethod, _ target: String) -> HTTPRequest {
        HTTPRequest(
            head: HTTPRequestHead(
                method: method, target: target, version: .http11, headers: ["Host": "x"], keepAlive: true,
                expectsContinue: false, framing: .none))
    }

    @Test("middleware sees the matched route's pattern and attaches a typed value the handler reads back")
    func attachedByMiddleware() async {
        var router = Router()
        router.on(.get, "/tagged/{id}") { request in
            let tag = request.attachments[Tag.self]?.name ?? "none"
            let other = request.attachments[Other.self].map { String($0.count) } ?? "none"
            return HTTPResponse.json("\(request.route) \(tag) \(other)")
        }
        router.on(.get, "/plain") { request in
            HTTPResponse.json("\(request.route) \(request.attachments[Tag.self]?.name ?? "none")")
        }
        // Added after the routes: it still covers the group's route, and only it.
        router.use(.prefix("/tagged/")) { request, responder, next in
            var request = request
            request.attachments[Tag.self] = Tag(name: "from " + request.route)
            next(request, responder)
        }
        let tagged = await router.respond(to: request(.get, "/tagged/7"))
        #expect(String(decoding: tagged.body, as: UTF8.self) == "/tagged/{id} from /tagged/{id} none")
        let head = await router.respond(to: request(.head, "/tagged/7"))
        #expect(head.status == .ok)
        let plain = await router.respond(to: request(.get, "/plain"))
        #expect(String(decoding: plain.body, as: UTF8.self) == "/plain none")
    }

    @Test("attachments are keyed by type: setting one leaves the others, and nil removes it")
    func keyedByType() {
        var attachments = HTTPRequest.Attachments()
        attachments[Tag.self] = Tag(name: "a")
        attachments[Other.self] = Other(count: 2)
        #expect(attachments[Tag.self] == Tag(name: "a"))
        #expect(attachments[Other.self]?.count == 2)
        attachments[Tag.self] = nil
        #expect(attachments[Tag.self] == nil)
        #expect(attachments[Other.self]?.count == 2)
        #expect(request(.get, "/").route.isEmpty)
    }
}
