import GronaMockPlatform

/// The one-shot answer channel of a request.
///
/// A handler calls `send` once, either before it returns (the common case, delivered inline with no thread
/// hop) or later from any thread: after a database commit, or when a long-poll's data arrives. The loop
/// is never blocked waiting for it.
///
/// A handler that keeps a request unanswered on purpose (a delay, a long-poll) says so with `hold(onAbandon:)`,
/// so that a client who goes meanwhile takes back its connection at once instead of waiting out the hold.
public final class HTTPResponder: Sendable {
    /// Frees what a hold keeps for its request (cancels a timer, removes a waiter from its table).
    public typealias Release = @Sendable () -> Void

    private enum State {
        /// The handler is still running on the loop; a response now is delivered inline when it returns.
        /// `holds`: the releases of the holds declared so far (none: the request is not held).
        case dispatching(holds: [Release])
        case stored(HTTPResponse)
        /// The handler returned without answering; a later response goes through `deliver`.
        case detached(holds: [Release])
        case done
        /// The client went before the answer: a later response goes nowhere and a later hold is released at
        /// once.
        case abandoned

        var holds: [Release] {
            switch self {
            case .dispatching(let holds), .detached(let holds): holds
            case .stored, .done, .abandoned: []
            }
        }
    }

    private let state = Mutex<State>(.dispatching(holds: []))
    /// Where a response sent after dispatch goes.
    private let delivery: Delivery
    /// The responder a relay answers through (`init(relayingTo:deliver:)`): a hold declared here is its own.
    /// Otherwise a hold is reported to the connection, once, when the request becomes held
    /// (`Delivery.connection`).
    private let upstream: HTTPResponder?

    /// A caller's closure, or the connection that owns the request: the connection's own responder carries
    /// what it needs to reach it rather than two closures, one responder and its closures allocated for every
    /// request being a visible share of the configuration endpoint's time (bench/http.sh).
    private enum Delivery: Sendable {
        case call(@Sendable (HTTPResponse) -> Void)
        case connection(ConnectionLink)
    }

    /// `deliver` receives a response sent after dispatch finished; it must be safe to call from any thread.
    /// Nothing here closes early for a hold: a caller without a connection (in-process exchange) never
    /// abandons.
    public init(deliver: @escaping @Sendable (HTTPResponse) -> Void) {
        delivery = .call(deliver)
        upstream = nil
    }

    /// A responder that stands in front of `upstream` and passes each answer on through `deliver` (after
    /// changing or timing it): a hold declared on it is `upstream`'s, so that the client that owns `upstream`
    /// going still releases it.
    public init(relayingTo upstream: HTTPResponder, deliver: @escaping @Sendable (HTTPResponse) -> Void) {
        delivery = .call(deliver)
        self.upstream = upstream
    }

    /// The connection's own responder: a late answer goes to the connection on its loop, and the first hold
    /// declared is reported to it there, so that it can look again at whether its client is still there.
    init(connection: ConnectionLink) {
        delivery = .connection(connection)
        upstream = nil
    }

    private func deliver(_ response: HTTPResponse) {
        switch delivery {
        case .call(let deliver): deliver(response)
        case .connection(let connection): connection.complete(with: response)
        }
    }

    /// Answers the request. Only the first call counts; after the client went, it goes nowhere.
    public func send(_ response: HTTPResponse) {
        let deliverNow = state.withLock { state -> Bool in
            switch state {
            case .dispatching:
                state = .stored(response)
                return false
            case .detached:
                state = .done
                return true
            case .stored, .done, .abandoned:
                return false
            }
        }
        if deliverNow { deliver(response) }
    }

    /// Declares that the handler holds the request: it answers later on purpose (a delay, a long-poll), and
    /// until then the request keeps something of the server's (a timer, a waiter). If the client goes before
    /// the answer (end of stream, reset, a failed write, a timeout, any close), the connection closes at once
    /// rather than wait for the answer it could not deliver, and calls `onAbandon` once, on its event loop:
    /// it must free what the hold keeps and return quickly, without blocking. A client that went before the
    /// hold has it released at once, here; a hold declared after `send` is not kept (nothing is left to free).
    ///
    /// As nginx treats a client that closes while its request waits on an upstream (status 499), a client
    /// that finishes sending during a hold is taken as gone: it could read the answer only if it had kept its
    /// side open.
    public func hold(onAbandon release: @escaping Release) {
        if let upstream { return upstream.hold(onAbandon: release) }
        enum Outcome {
            /// Kept; `first`: no hold before it, so the connection is told.
            case kept(first: Bool)
            case releaseNow
            case ignored
        }
        let outcome = state.withLock { state -> Outcome in
            switch state {
            case .dispatching(let holds):
                state = .dispatching(holds: holds + [release])
                return .kept(first: holds.isEmpty)
            case .detached(let holds):
                state = .detached(holds: holds + [release])
                return .kept(first: holds.isEmpty)
            case .abandoned:
                return .releaseNow
            case .stored, .done:
                return .ignored
            }
        }
        switch outcome {
        case .kept(first: true): if case .connection(let connection) = delivery { connection.holdDeclared() }
        case .releaseNow: release()
        case .kept(first: false), .ignored: break
        }
    }

    /// Whether a hold is declared and the request is not answered yet.
    package var isHeld: Bool { state.withLock { !$0.holds.isEmpty } }

    /// The client went: a request still unanswered is abandoned, and its holds are released (once, here).
    /// True when it was unanswered: the caller reports it; false when the answer had already been given.
    /// Called by whoever would deliver the answer: the connection as it closes, or an in-process caller that
    /// stops waiting.
    package func abandon() -> Bool {
        let holds = state.withLock { state -> [Release]? in
            switch state {
            case .dispatching(let holds), .detached(let holds):
                state = .abandoned
                return holds
            case .stored, .done, .abandoned:
                return nil
            }
        }
        guard let holds else { return false }
        for release in holds { release() }
        return true
    }

    /// Called by whoever ran the handler, right after it returned: the response if the handler already
    /// answered, otherwise nil, and from now on `send` delivers through `deliver`.
    public func finishDispatch() -> HTTPResponse? {
        state.withLock { state -> HTTPResponse? in
            switch state {
            case .stored(let response):
                state = .done
                return response
            case .dispatching(let holds):
                state = .detached(holds: holds)
                return nil
            case .detached, .done, .abandoned:
                return nil
            }
        }
    }
}

extension Router {
    /// Routes one request without a socket and waits for its answer: for tests and in-process callers.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var request = request
        switch match(request.method, path: request.head.path) {
        case .failure(let error):
            return error.response
        case .route(let handler, let parameters, _, _):
            request.pathParameters = parameters
            let routed = request
            return await withCheckedContinuation { continuation in
                let responder = HTTPResponder { continuation.resume(returning: $0) }
                handler(routed, responder)
                if let response = responder.finishDispatch() { continuation.resume(returning: response) }
            }
        }
    }
}
