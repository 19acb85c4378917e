import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// A domain error that knows nothing of HTTP, given its answer in one place, as the engine does.
private struct OutOfStock: Error {
    let sku: String
}

extension OutOfStock: HTTPErrorConvertible {
    var httpError: HTTPError { HTTPError(.conflict, code: ErrorCode("out_of_stock"), message: "\(sku) is sold out.") }
}

private struct Unexpected: Error {}

@Suite("Errors thrown by handlers")
struct ErrorConvertibleTests {
    private func request(_ target: String) -> HTTPRequest {
        HTTPRequest(
            head: HTTPRequestHead(
                method: .get, target: target, version: .http11, headers: ["Host": "x"], keepAlive: true,
                expectsContinue: false, framing: .none))
    }

    @Test("a thrown HTTPErrorConvertible becomes its status, code and message")
    func convertible() async throws {
        var router = Router()
        router.on(.get, "/item/{sku}") { request in throw OutOfStock(sku: request.pathParameters["sku"] ?? "") }
        let response = await router.respond(to: request("/item/mug-7"))
        #expect(response.status == .conflict)
        let body = try JSONParser().parse(response.body)
        #expect(body["error"]?["code"] == "out_of_stock")
        #expect(body["error"]?["message"] == "mug-7 is sold out.")
    }

    @Test("any other error is a generic 500 that does not show the error")
    func unexpected() async throws {
        var router = Router()
        router.on(.get, "/boom") { _ in throw Unexpected() }
        let response = await router.respond(to: request("/boom"))
        #expect(response.status == .internalServerError)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("Unexpected"))
    }
}
