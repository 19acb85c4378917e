/// The lifecycle of one keep-alive client connection as one enum, with one `mutating` method per input that
/// returns what the caller must do (as AsyncHTTPClient's `HTTP1ConnectionStateMachine`): no flags that must
/// agree with each other, and every transition in one place.
package struct ClientConnectionState: Sendable, Equatable {
    package enum State: Sendable, Equatable {
        /// A non-blocking connect is under way; a connection is only opened for a request, which waits on it.
        case connecting
        /// Connected to an `https://` target: the TLS handshake is under way (RFC 8446 §4), bounded by the
        /// request's deadline as the connect is. The request waits for it.
        case handshaking
        /// Connected, open for the next request (keep-alive).
        case idle
        /// Writing a request; an early answer (a 413 before the body is read) may already arrive.
        case sending
        /// The request is written; reading the answer.
        case awaitingResponse
        /// Gone: the socket is closed and the slot may be reused.
        case closed
    }

    package enum Action: Sendable, Equatable {
        case none
        /// Start or go on with the TLS handshake.
        case handshake
        /// Write the request (from its first unsent byte).
        case send
        /// The request is written: watch for the answer only.
        case awaitResponse
        /// Hand the answer to the caller; then keep the connection for the next request, or close it.
        case deliver(keepAlive: Bool)
        /// The request failed without a whole answer; close the connection.
        case fail(EndpointStatistics.TransportFailure)
        /// Close a connection that carries no request (the server closed an idle connection).
        case close
    }

    package private(set) var state: State

    /// A connection starts connecting, for the request that opened it.
    package init() { state = .connecting }

    package var carriesRequest: Bool {
        switch state {
        case .connecting, .handshaking, .sending, .awaitingResponse: true
        case .idle, .closed: false
        }
    }

    /// The connect finished (successfully): send the request that waited for it, or first make the TLS
    /// handshake when the target is `https://` (`secure`).
    package mutating func connected(secure: Bool = false) -> Action {
        guard state == .connecting else { return .none }
        state = secure ? .handshaking : .sending
        return secure ? .handshake : .send
    }

    /// The TLS handshake finished, the server verified: send the request.
    package mutating func handshakeFinished() -> Action {
        guard state == .handshaking else { return .none }
        state = .sending
        return .send
    }

    /// The TLS handshake failed (`failure` says why: an unknown CA, a name mismatch, not TLS at all): the
    /// request fails with it, and the connection is closed without a word more (RFC 8446 §6.2).
    package mutating func handshakeFailed(_ failure: EndpointStatistics.TransportFailure) -> Action {
        guard state == .handshaking else { return .none }
        state = .closed
        return .fail(failure)
    }

    /// A request was assigned to an idle connection.
    package mutating func startRequest() -> Action {
        guard state == .idle else { return .none }
        state = .sending
        return .send
    }

    /// Every byte of the request went out.
    package mutating func requestSent() -> Action {
        guard state == .sending else { return .none }
        state = .awaitingResponse
        return .awaitResponse
    }

    /// A whole answer was read. An answer that arrives while the request is still being written ends the
    /// connection after it (the rest of the request would be read as a new one).
    package mutating func responseComplete(keepAlive: Bool) -> Action {
        switch state {
        case .awaitingResponse:
            state = keepAlive ? .idle : .closed
            return .deliver(keepAlive: keepAlive)
        case .sending:
            state = .closed
            return .deliver(keepAlive: false)
        case .connecting, .handshaking, .idle, .closed:
            return .none
        }
    }

    /// The peer closed or reset the connection, or a read or write failed. `answerComplete` says whether a
    /// body read until the close is whole (then it is an answer, not a failure).
    package mutating func connectionEnded(answerComplete: Bool = false) -> Action {
        let previous = state
        state = .closed
        switch previous {
        case .connecting: return .fail(.connect)
        case .handshaking: return .fail(.tlsHandshake)
        case .sending: return .fail(.closed)
        case .awaitingResponse: return answerComplete ? .deliver(keepAlive: false) : .fail(.closed)
        case .idle: return .close
        case .closed: return .none
        }
    }

    /// The answer could not be read as HTTP/1.1.
    package mutating func malformedResponse() -> Action {
        guard carriesRequest else { return connectionEnded() }
        state = .closed
        return .fail(.malformed)
    }

    /// The answer passed what the client keeps of one: it is given up, and the connection with it (the rest
    /// of the answer would be read as the next one).
    package mutating func answerTooLarge() -> Action {
        guard carriesRequest else { return connectionEnded() }
        state = .closed
        return .fail(.answerTooLarge)
    }

    /// The request's deadline passed: before the connect completed, the service could not be connected to;
    /// before the handshake did, it did not speak TLS in time.
    package mutating func timedOut() -> Action {
        guard carriesRequest else { return .none }
        let previous = state
        state = .closed
        switch previous {
        case .connecting: return .fail(.connect)
        case .handshaking: return .fail(.tlsHandshake)
        case .idle, .sending, .awaitingResponse, .closed: return .fail(.timeout)
        }
    }
}
