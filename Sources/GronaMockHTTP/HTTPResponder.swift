import GronaMockJSON

/// The one-shot answer channel of a request.
///
/// A handler calls `send` once, either before it returns (the common case, delivered inline with no thread
/// hop) or later from any thread: after a database commit, or when a long-poll's data arrives. The loop
/// is never blocked waiting for it.
public final class HTTPResponder: Sendable {
    private enum State {
        /// The handler is still running on the loop; a response now is delivered inline when it returns.
        case dispatching
        case stored(HTTPResponse)
        /// The handler returned without answering; a later response goes through `deliver`.
        case detached
        case done
    }

    private let state = Mutex<State>(.dispatching)
    private let deliver: @Sendable (HTTPResponse) -> Void

    /// `deliver` receives a response sent after dispatch finished; it must be safe to call from any thread.
    public init(deliver: @escaping @Sendable (HTTPResponse) -> Void) {
        self.deliver = deliver
    }

    /// Answers the request. Only the first call counts.
    public func send(_ response: HTTPResponse) {
        let deliverNow = state.withLock { state -> Bool in
            switch state {
            case .dispatching:
                state = .stored(response)
                return false
            case .detached:
                state = .done
                return true
            case .stored, .done:
                return false
            }
        }
        if deliverNow { deliver(response) }
    }

    /// Called by whoever ran the handler, right after it returned: the response if the handler already
    /// answered, otherwise nil, and from now on `send` delivers through `deliver`.
    public func finishDispatch() -> HTTPResponse? {
        state.withLock { state -> HTTPResponse? in
            switch state {
            case .stored(let response):
                state = .done
                return response
            case .dispatching:
                state = .detached
                return nil
            case .detached, .done:
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
