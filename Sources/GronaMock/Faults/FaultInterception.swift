import GronaMockHTTP
import GronaMockPlatform

extension FaultEngine {
    /// The faultable Grona endpoints (contract §8): every route an `Endpoint` names by its pattern. The fault
    /// middleware covers the group, routes registered before and after it alike, so a handler cannot forget
    /// it; a test walks the route table to prove that every `/v1/` route but the key set is in it.
    static let group = RouteGroup { _, pattern in Endpoint(route: pattern) != nil }

    /// The fault middleware of `group`: asks the rules without a workspace as a request starts, answers for
    /// them when one answers (a status or a drop), and otherwise hands the handler the request's `Pass`
    /// (`request.faults`) and a responder that delivers its answer as the rule that fired says (late, or cut
    /// short). The handler asks its workspace's rules with `pass.enter(workspace:)` once it knows the
    /// workspace, and applies `pass.fault`, the endpoint-specific fault, if any.
    ///
    /// While no rule may exist (`FaultRuleStore.mayHaveRules`) the request goes straight to its handler, with
    /// no pass: nothing could fire, and the way through the rules was a measurable share of every request.
    /// Rules in a database (`FaultRuleStore.takesRemotely`) are taken with a round trip, which must not hold
    /// an event loop: while any rule may exist the request (its handler too) runs on `pool`.
    func middleware(pool: BlockingPool? = nil) -> HTTPMiddleware {
        { request, responder, next in
            // Only the group's routes get here, and each is an endpoint by its pattern.
            guard let endpoint = Endpoint(route: request.route), request.attachments[Bypass.self] == nil else {
                return next(request, responder)
            }
            let proceed: @Sendable (Bool) -> Void = { asks in
                guard let (pass, delivery) = self.start(endpoint, responder, asks: asks) else { return }
                var request = request
                request.attachments[Pass.self] = pass
                next(request, delivery)
            }
            guard self.rules.mayHaveRules else { return next(request, responder) }
            guard self.rules.takesRemotely else { return proceed(true) }
            guard let pool else { return proceed(false) }
            pool.execute { proceed(true) }
        }
    }

    /// Set by an in-process caller (the test kit's own checks) on a request the rules must not see.
    package struct Bypass: Sendable {
        package init() {}
    }

    /// One request's way through the fault rules, in two passes.
    ///
    /// `start` asks the rules without a workspace as the request starts; `enter(workspace:)` asks the rules of
    /// the request's workspace once the endpoint knows it (config: from its path; grants: once the secret key
    /// authenticated; events: once the batch parsed). Across both, the first rule that fires applies; the
    /// rules asked after it only take their draws.
    ///
    /// A status answers at once, and a drop closes the connection with no answer: in both the request is not
    /// processed further, so nothing is stored or signed. A delay or a truncation lets the handler answer as
    /// usual, through the responder `start` gave it, which sends the answer late (`DelayedAnswer`, off the
    /// event loop, which keeps serving; a client that goes meanwhile ends the delay) or cuts its body short. The endpoint-specific fault (a tampered configuration or grant)
    /// is left in `fault` for the handler to apply.
    final class Pass: Sendable {
        private let engine: FaultEngine
        let endpoint: Endpoint
        /// False when the rules are not asked for this request: kept in a database and none existed as it
        /// started, so it stayed on its event loop, where no round trip may run.
        private let asks: Bool
        /// The action of the rule that fired for this request, if one did.
        private let fired = Mutex<FaultAction?>(nil)

        fileprivate init(engine: FaultEngine, endpoint: Endpoint, asks: Bool) {
            self.engine = engine
            self.endpoint = endpoint
            self.asks = asks
        }

        /// The endpoint-specific fault for the handler to apply, if its rule fired.
        var fault: FaultKind? {
            guard case .tamper(let kind)? = fired.withLock({ $0 }) else { return nil }
            return kind
        }

        /// Asks the rules of `workspace`. Returns the answer to send instead when one of them answers the
        /// request (a status or a drop): the handler then stops, and sends it.
        func enter(workspace: String) -> HTTPResponse? {
            guard asks else { return nil }
            let claimed = fired.withLock { $0 != nil }
            return apply(engine.decideLogging(for: endpoint, workspace: workspace, claimed: claimed))
        }

        /// Records the action of the rule that fired, if one did; the answer when the rule answers the request.
        fileprivate func apply(_ action: FaultAction?) -> HTTPResponse? {
            guard let action else { return nil }
            fired.withLock { $0 = action }
            switch action {
            case .status(let code, let retryAfterSeconds):
                return FaultEngine.injectedStatus(code, retryAfterSeconds: retryAfterSeconds).response
            case .dropConnection:
                var response = HTTPResponse()
                response.delivery = .dropConnection
                return response
            default:
                return nil
            }
        }

        /// A responder that sends each answer on to `responder` as the rule that fired says: late for a
        /// delay, cut short for a truncation, and as it is otherwise. It holds the pass, not the reverse, so
        /// the two are freed with the request; a hold declared on it is `responder`'s, so that the client's
        /// going releases it.
        fileprivate func delivery(to responder: HTTPResponder) -> HTTPResponder {
            let relay = HTTPResponder(relayingTo: responder) { [self] response in
                switch fired.withLock({ $0 }) {
                case .delay(let milliseconds)?:
                    DelayedAnswer.send(response, through: responder, afterMilliseconds: milliseconds)
                case .truncateBody(let afterBytes)?:
                    var response = response
                    let kept = FaultEngine.cut(response.body.count, afterBytes: afterBytes)
                    response.delivery = .truncated(afterBytes: kept)
                    responder.send(response)
                default:
                    responder.send(response)
                }
            }
            // Nobody dispatches through this responder, so it is detached at once: `send` delivers at once,
            // from whichever thread calls it.
            _ = relay.finishDispatch()
            return relay
        }
    }

    /// Starts a request of `endpoint`: asks the rules without a workspace. Returns nil when one of them
    /// answered the request (a status or a drop), which is then already sent; otherwise the request's pass and
    /// the responder its handler must answer through.
    func start(_ endpoint: Endpoint, _ responder: HTTPResponder, asks: Bool = true) -> (Pass, HTTPResponder)? {
        let pass = Pass(engine: self, endpoint: endpoint, asks: asks)
        if asks, let answer = pass.apply(decideLogging(for: endpoint)) {
            responder.send(answer)
            return nil
        }
        return (pass, pass.delivery(to: responder))
    }

    /// `decide`, where a rule store that cannot be reached (the database is down) fires nothing: the
    /// request is served as if there were no rule, and the storage's own 503s say what is wrong.
    func decideLogging(for endpoint: Endpoint, workspace: String? = nil, claimed: Bool = false) -> FaultAction? {
        do {
            let action = try decide(for: endpoint, workspace: workspace, claimed: claimed)
            if let action { tellFired(action, endpoint: endpoint, workspace: workspace) }
            return action
        } catch {
            logger?.warning("fault rules not consulted", [("error", error.message)])
            return nil
        }
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
}

extension HTTPRequest {
    /// The request's way through the fault rules, when its route is a faultable endpoint (`FaultEngine.group`).
    var faults: FaultEngine.Pass? { attachments[FaultEngine.Pass.self] }
}
