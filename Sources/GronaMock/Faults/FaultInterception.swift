import Dispatch
import GronaHTTP
import GronaJSON

extension FaultEngine {
    /// One request's way through the fault rules, in two passes.
    ///
    /// `start` asks the rules without a workspace as the request starts; `enter(workspace:)` asks the rules of
    /// the request's workspace once the endpoint knows it (config: from its path; grants: once the secret key
    /// authenticated; events: once the batch parsed). Across both, the first rule that fires applies; the
    /// rules asked after it only take their draws.
    ///
    /// A status answers at once, and a drop closes the connection with no answer: in both the request is not
    /// processed further, so nothing is stored or signed. A delay or a truncation lets the handler answer as
    /// usual, through `responder`, which sends the answer late (off the event loop, which keeps serving) or
    /// cuts its body short. The endpoint-specific fault (a tampered configuration or grant) is left in `fault`
    /// for the handler to apply.
    struct Pass: Sendable {
        private let engine: FaultEngine
        let endpoint: Endpoint
        /// Where the answer goes: the request's own responder, or one that delays or truncates it.
        private(set) var responder: HTTPResponder
        /// The endpoint-specific fault for the handler to apply, if its rule fired.
        private(set) var fault: FaultAction?
        /// Whether a rule has fired for this request.
        private var claimed = false

        fileprivate init(engine: FaultEngine, endpoint: Endpoint, responder: HTTPResponder) {
            self.engine = engine
            self.endpoint = endpoint
            self.responder = responder
        }

        /// Asks the rules of `workspace`. Returns the answer to send instead when one of them answers the
        /// request (a status or a drop): the handler then stops, and sends it through `responder`.
        mutating func enter(workspace: String) -> HTTPResponse? {
            apply(engine.decide(for: endpoint, workspace: workspace, claimed: claimed))
        }

        /// Applies the action of the rule that fired, if one did; the answer when the rule answers the request.
        fileprivate mutating func apply(_ action: FaultAction?) -> HTTPResponse? {
            guard let action else { return nil }
            claimed = true
            let responder = self.responder
            switch action {
            case .status(let code, let retryAfterSeconds):
                return FaultEngine.injectedStatus(code, retryAfterSeconds: retryAfterSeconds).response
            case .dropConnection:
                var response = HTTPResponse()
                response.delivery = .dropConnection
                return response
            case .delay(let milliseconds):
                self.responder = FaultEngine.relay { response in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
                        responder.send(response)
                    }
                }
            case .truncateBody(let afterBytes):
                self.responder = FaultEngine.relay { response in
                    var response = response
                    response.delivery = .truncated(
                        afterBytes: FaultEngine.cut(response.body.count, afterBytes: afterBytes))
                    responder.send(response)
                }
            default:
                fault = action
            }
            return nil
        }
    }

    /// Starts a request of `endpoint`: asks the rules without a workspace. Returns nil when one of them
    /// answered the request (a status or a drop), which is then already sent.
    func start(_ endpoint: Endpoint, _ responder: HTTPResponder) -> Pass? {
        var pass = Pass(engine: self, endpoint: endpoint, responder: responder)
        if let answer = pass.apply(decide(for: endpoint)) {
            responder.send(answer)
            return nil
        }
        return pass
    }

    /// The contract's error body with code `injected_fault`, and `Retry-After` when the rule has one.
    static func injectedStatus(_ code: Int, retryAfterSeconds: Int?) -> HTTPError {
        HTTPError(
            HTTPStatus.standard(code), code: .injectedFault,
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
    fileprivate static func relay(_ forward: @escaping @Sendable (HTTPResponse) -> Void) -> HTTPResponder {
        let relay = HTTPResponder(deliver: forward)
        // Nobody dispatches through this responder, so it is detached at once: `send` calls `forward`.
        _ = relay.finishDispatch()
        return relay
    }
}

extension Router {
    /// Adds a handler that answers at once, behind the fault engine: the rules without a workspace are asked
    /// before it runs, and it asks the rules of the request's workspace with `pass.enter(workspace:)` once it
    /// knows the workspace (see `FaultEngine.Pass`), then applies `pass.fault`, if any.
    mutating func on(
        _ method: HTTPMethod, _ pattern: String, bodyLimit: Int = Router.defaultBodyLimit, faults: FaultEngine,
        endpoint: FaultEngine.Endpoint,
        _ handler: @escaping @Sendable (HTTPRequest, inout FaultEngine.Pass) throws -> HTTPResponse
    ) {
        let logger = self.logger
        on(method, pattern, bodyLimit: bodyLimit) { request, responder in
            guard var pass = faults.start(endpoint, responder) else { return }
            let response = Router.respond(to: request, with: { try handler($0, &pass) }, logger: logger)
            pass.responder.send(response)
        }
    }
}
