import Dispatch
import GronaMockPlatform

extension Router {
    /// Answers one whole request, given in its wire form, without a socket: parsed with the server's limits,
    /// refused on its head where a connection would refuse it, routed through every middleware of its groups,
    /// and waited for. For tests and tools that put many requests to one engine (a validation table), where a
    /// server per request would cost a start-up each and prove nothing more. nil when the handler did not
    /// answer within `timeout`.
    package func exchange(
        _ bytes: [UInt8], limits: HTTPParserLimits = HTTPParserLimits(), timeout: Duration = .seconds(10)
    ) -> HTTPResponse? {
        let answer = Answer()
        exchange(bytes, limits: limits) { answer.give($0) }
        return answer.wait(timeout)
    }

    /// The same exchange, answered through `completion` (from any thread) instead of waited for: what an
    /// `async` caller needs, with no thread held while a long-poll waits.
    /// `attachments` are set on the request before any middleware sees it: an in-process caller can say who
    /// it is (the test kit asks the fault middleware to leave its own checks alone).
    package func exchange(
        _ bytes: [UInt8], limits: HTTPParserLimits = HTTPParserLimits(),
        attachments: HTTPRequest.Attachments = HTTPRequest.Attachments(),
        completion: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(bytes)
        let head: HTTPRequestHead
        let body: [UInt8]
        let match: Match
        do throws(HTTPParseError) {
            guard case .head(let parsed)? = try parser.next() else { return completion(Self.incomplete.response) }
            head = parsed
            match = self.match(head.method, path: head.path)
            // As a connection does: a request with a body is refused on its head, before the body is read.
            if case .route(_, _, _, let pattern) = match, head.framing != .none,
                let refusal = refusal(for: head, pattern: pattern)
            {
                return completion(refusal.response)
            }
            try parser.acceptBody(limit: match.bodyLimit)
            guard case .body(let read)? = try parser.next() else { return completion(Self.incomplete.response) }
            body = read
        } catch {
            return completion(HTTPError(error).response)
        }
        switch match {
        case .failure(let error):
            completion(error.response)
        case .route(let handler, let parameters, _, _):
            let responder = HTTPResponder(deliver: completion)
            var request = HTTPRequest(head: head, body: body, pathParameters: parameters, remoteAddress: "in-process")
            request.attachments = attachments
            handler(request, responder)
            if let response = responder.finishDispatch() { completion(response) }
        }
    }

    private static let incomplete = HTTPError(
        .badRequest, code: .badRequest, message: "The bytes do not hold one whole request.")

    /// The answer a handler gives later, from another thread.
    private final class Answer: Sendable {
        private let response = Mutex<HTTPResponse?>(nil)
        private let ready = DispatchSemaphore(value: 0)

        func give(_ value: HTTPResponse) {
            response.withLock { $0 = $0 ?? value }
            ready.signal()
        }

        func wait(_ timeout: Duration) -> HTTPResponse? {
            _ = ready.wait(timeout: .now() + .nanoseconds(Int(clamping: timeout.nanoseconds)))
            return response.withLock { $0 }
        }
    }
}
