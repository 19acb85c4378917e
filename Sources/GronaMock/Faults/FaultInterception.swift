import Dispatch

extension FaultEngine {
    /// A request that goes on to its handler: the endpoint-specific fault left for the handler to apply
    /// (a tampered configuration or grant), and the responder to answer through.
    struct Intercepted: Sendable {
        let fault: FaultAction?
        let responder: HTTPResponder
    }

    /// Decides once for a request of `endpoint` and applies the kinds every endpoint shares.
    ///
    /// A status answers at once, and a drop closes the connection with no answer: in both the handler does
    /// not run, so nothing is stored or signed. A delay or a truncation lets the handler answer as usual,
    /// through a responder that sends the answer late (off the event loop, which keeps serving) or cuts its
    /// body short. Returns nil when the request is already answered.
    func intercept(_ endpoint: Endpoint, _ responder: HTTPResponder) -> Intercepted? {
        guard let action = decide(for: endpoint) else { return Intercepted(fault: nil, responder: responder) }
        switch action {
        case .status(let code, let retryAfterSeconds):
            responder.send(Self.injectedStatus(code, retryAfterSeconds: retryAfterSeconds).response)
            return nil
        case .dropConnection:
            var response = HTTPResponse()
            response.delivery = .dropConnection
            responder.send(response)
            return nil
        case .delay(let milliseconds):
            return Intercepted(
                fault: nil,
                responder: Self.relay { response in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
                        responder.send(response)
                    }
                })
        case .truncateBody(let afterBytes):
            return Intercepted(
                fault: nil,
                responder: Self.relay { response in
                    var response = response
                    response.delivery = .truncated(afterBytes: Self.cut(response.body.count, afterBytes: afterBytes))
                    responder.send(response)
                })
        default:
            return Intercepted(fault: action, responder: responder)
        }
    }

    /// The contract's error body with code `injected_fault`, and `Retry-After` when the rule has one.
    static func injectedStatus(_ code: Int, retryAfterSeconds: Int?) -> HTTPError {
        HTTPError(
            HTTPStatus.standard(code), code: "injected_fault",
            message: "A fault rule (/_mock/faults) answered this request with \(code).",
            headers: retryAfterSeconds.map { ["Retry-After": String($0)] } ?? [:])
    }

    /// Where a truncated body stops: `afterBytes`, but always short of the whole body (so a client sees a
    /// body cut short, not a whole one), or half the body by default.
    static func cut(_ count: Int, afterBytes: Int?) -> Int {
        guard let afterBytes else { return count / 2 }
        return min(afterBytes, max(0, count - 1))
    }

    /// A responder whose every answer goes to `forward`, from whichever thread sends it.
    private static func relay(_ forward: @escaping @Sendable (HTTPResponse) -> Void) -> HTTPResponder {
        let relay = HTTPResponder(deliver: forward)
        // Nobody dispatches through this responder, so it is detached at once: `send` calls `forward`.
        _ = relay.finishDispatch()
        return relay
    }
}

extension Router {
    /// Adds a handler that answers at once, behind the fault engine: the generic kinds are applied around
    /// it (see `FaultEngine.intercept`) and the endpoint-specific fault, if any, is passed to it.
    mutating func on(
        _ method: HTTPMethod, _ pattern: String, bodyLimit: Int = Router.defaultBodyLimit, faults: FaultEngine,
        endpoint: FaultEngine.Endpoint,
        _ handler: @escaping @Sendable (HTTPRequest, FaultAction?) throws -> HTTPResponse
    ) {
        let logger = self.logger
        on(method, pattern, bodyLimit: bodyLimit) { request, responder in
            guard let intercepted = faults.intercept(endpoint, responder) else { return }
            intercepted.responder.send(
                Router.respond(to: request, with: { try handler($0, intercepted.fault) }, logger: logger))
        }
    }
}
