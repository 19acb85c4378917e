import GronaMockPlatform

/// The lifecycle of one server connection as one enum, with one `mutating` method per input that returns what
/// the connection must do (as the load generator's `ClientConnectionState` and AsyncHTTPClient's
/// `HTTP1ConnectionStateMachine`). It holds no socket and does no I/O, so every transition is tested alone
/// (`ConnectionStateMachineTests`); `Connection` feeds it and performs its actions.
///
/// It owns every fact of the lifecycle that could otherwise disagree with another: whether requests are read,
/// how far the next one is and its deadline, whether reading is paused, whether the client finished sending,
/// whether the final answer is queued and how the connection ends after it. What the connection holds for its
/// client (the parser's bytes, the answers waiting their turn, the outbound queue, a streamed body) stays with
/// `Connection`, which hands the inputs that decide on it a `Backlog` computed from it each time, never a copy
/// kept beside it; whether a request is held is asked of its responders (`HTTPResponder.isHeld`) for the same
/// reason. `Request` is what the connection needs of a request whose body is being read, held here only.
///
///     open ──Connection: close / shutdown / client done──▶ draining(lastRequestRead) ──closing answer queued──┐
///       │                                                                                                      ▼
///       └──request unreadable (400, 408, 413, 431…)──▶ draining(failing) ──its answer queued──▶ draining(final)
///                                                                                                 │ written
///                                                     closed ◀──deadline or client done── lingering ◀┘
///                                                                                   (or closed at once)
///
/// Any state goes to `closed` when the client or the socket goes. An input that makes no sense in a state (bytes
/// after the close, an answer when the final one is queued) has a defined answer, never a trap.
struct ConnectionStateMachine<Request> {
    private(set) var state: State
    let limits: Limits

    /// A new connection has the header timeout to start its first request: over TLS that includes the
    /// handshake, so a client that opens and says nothing, or stops mid-handshake, is closed by it.
    init(limits: Limits, now: UInt64) {
        self.limits = limits
        state = .open(.betweenRequests, idleDeadline: MonotonicClock.deadline(from: now, after: limits.headerTimeout))
    }

    /// A machine in any state, for the transition tests.
    init(state: State, limits: Limits) {
        self.state = state
        self.limits = limits
    }

    // MARK: - What the state says

    var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// Whether the socket is read (to parse or to drop what comes): not paused, the client not done, not closed.
    var readsSocket: Bool {
        switch state {
        case .open(.paused, _), .draining(_, .paused), .draining(_, .ended), .closed: false
        case .open, .draining(_, .discarding), .lingering: true
        }
    }

    /// The request whose body is being read, if any (its `100 Continue` waits for the answers before it).
    var requestReadingBody: Request? {
        if case .open(.body(let body), _) = state { body.request } else { nil }
    }

    /// The readiness to wait for. Not reading, the client's end would go unseen behind the bytes it sent before
    /// it, and a held request with it: then the end alone is watched for (`Poller.Interest.readHangup`).
    func interest(writePending: Bool, holdsRequest: @autoclosure () -> Bool) -> Poller.Interest {
        var wanted: Poller.Interest = writePending ? .write : []
        switch state {
        case .open(.paused, _), .draining(_, .paused):
            if holdsRequest() { wanted.insert(.readHangup) }
        case .open, .draining(_, .discarding), .lingering:
            wanted.insert(.read)
        case .draining(_, .ended):
            break
        case .closed:
            return []
        }
        return wanted
    }

    /// Whether the backlog leaves no room to read another request.
    func isFull(_ backlog: Backlog) -> Bool {
        backlog.unanswered >= limits.maxPipelinedRequests || (backlog.write?.bytes ?? 0) >= limits.readHighWater
    }

    // MARK: - Reading

    /// Bytes arrived: parsed while the connection reads requests, dropped otherwise.
    func bytesRead() -> Action {
        if case .open = state { .parse } else { .discard }
    }

    /// The parser is about to look for the next request. Reading pauses when the backlog is full, unless a body
    /// is being read: that request finishes first, or it could wait out its body timeout.
    mutating func nextRequestWanted(_ backlog: Backlog) -> Action {
        guard case .open(let reading, let idleDeadline) = state else { return .none }
        switch reading {
        case .body:
            return .parse
        case .paused:
            return .pauseReading
        case .betweenRequests, .head:
            guard isFull(backlog) else { return .parse }
            state = .open(.paused(headDeadline: reading.requestDeadline), idleDeadline: idleDeadline)
            return .pauseReading
        }
    }

    /// A request's head is read: its body is read next, within the body timeout. Outside `open` the head is
    /// dropped (no request is read there); a head while a body is still being read cannot be placed, and ends
    /// the connection rather than lose either request.
    mutating func headRead(_ request: Request, keepAlive: Bool, expectsContinue: Bool, now: UInt64) -> Action {
        guard case .open(let reading, let idleDeadline) = state else { return .none }
        if case .body = reading { return close(.inconsistentInput) }
        let deadline = MonotonicClock.deadline(from: now, after: limits.bodyTimeout)
        let body = BodyRead(request: request, keepAlive: keepAlive, deadline: deadline, continueOwed: expectsContinue)
        state = .open(.body(body), idleDeadline: idleDeadline)
        return .none
    }

    /// The body is read whole: the request goes to its handler. A request that does not keep the connection
    /// alive, or any read once shutdown began, is the last one read.
    mutating func bodyRead(_ bytes: [UInt8], shuttingDown: Bool) -> Action {
        guard case .open(.body(let body), let idleDeadline) = state else { return .none }
        if body.keepAlive && !shuttingDown {
            state = .open(.betweenRequests, idleDeadline: idleDeadline)
        } else {
            state = .draining(.lastRequestRead, .discarding)
        }
        return .dispatch(body.request, body: bytes)
    }

    /// The parser took what it could of the bytes read. A request begun (`partialRequest`) starts its header
    /// timeout now, once: bytes trickled later cannot extend it.
    mutating func inputParsed(partialRequest: Bool, now: UInt64) -> Action {
        guard case .open(let reading, let idleDeadline) = state else { return .none }
        switch reading {
        case .betweenRequests where partialRequest:
            let deadline = MonotonicClock.deadline(from: now, after: limits.headerTimeout)
            state = .open(.head(deadline: deadline), idleDeadline: idleDeadline)
        case .head where !partialRequest:
            state = .open(.betweenRequests, idleDeadline: idleDeadline)
        case .betweenRequests, .head, .body, .paused:
            break
        }
        return .none
    }

    /// A request cannot be read (bad framing, a limit passed, a refusal on its head, its timeout, a client this
    /// transport cannot serve): it is answered with `error` after the answers owed before it, and that answer
    /// ends the connection. Once an error or the final answer is on its way, nothing more is said.
    mutating func requestUnreadable(_ error: HTTPError) -> Action {
        switch state {
        case .open(let reading, _):
            state = .draining(.failing, reading.drainInput)
            if case .body(let body) = reading { return .answerError(error, body.request) }
            return .answerError(error, nil)
        case .draining(.lastRequestRead, let input):
            state = .draining(.failing, input)
            return .answerError(error, nil)
        case .draining(.failing, _), .draining(.finalAnswerQueued, _), .closed:
            return .none
        case .lingering:
            // Our side is shut: no answer can be written any more.
            return close(.finished)
        }
    }

    /// The client finished sending (end of stream). What it asked is still answered, then the connection
    /// closes; a request whose body was cut off is dropped (RFC 9112 §8: an incomplete message is not
    /// processed), or the connection would wait for it for ever. A held request's client is taken as gone
    /// (`HTTPResponder.hold`), and an endless stream has no reader left: both end the connection now.
    mutating func peerFinished(_ backlog: Backlog, holdsRequest: Bool) -> Action {
        let drain: Drain
        switch state {
        case .closed, .draining(_, .ended):
            return .none
        case .lingering:
            return close(.clientFinished)
        case .open:
            drain = .lastRequestRead
        case .draining(let current, _):
            drain = current
        }
        if holdsRequest { return close(.holdAbandoned) }
        if backlog.stream?.stopsWhenClientCloses == true || backlog.isEmpty { return close(.clientFinished) }
        state = .draining(drain, .ended)
        return .updateInterest
    }

    /// A read failed, or the connection was reset.
    mutating func readFailed() -> Action {
        isClosed ? .none : close(.connectionLost)
    }

    /// The client's end, seen without a read (`Poller.Interest.readHangup`, watched while reading is paused and
    /// a request is held): the held request's client is gone. Without a hold any more, the end waits for the
    /// read that reaches it, behind the requests the client sent before it.
    mutating func hangupSeen(holdsRequest: Bool) -> Action {
        switch state {
        case .closed, .draining(_, .ended): .none
        case .open, .draining, .lingering: holdsRequest ? close(.holdAbandoned) : .updateInterest
        }
    }

    /// A handler has just held a request (`HTTPResponder.hold`). If its client already finished sending, it is
    /// gone and the hold ends now; otherwise, with reading paused, its end is watched for from now on.
    /// `holdsRequest` is asked of the responders after the notice: the held request may be answered already.
    mutating func holdStarted(holdsRequest: Bool) -> Action {
        switch state {
        case .closed: .none
        case .draining(_, .ended) where holdsRequest: close(.holdAbandoned)
        case .open, .draining, .lingering: .updateInterest
        }
    }

    // MARK: - Writing

    /// The answer whose turn it is is ready: it is queued unless the final answer already is (nothing may
    /// follow that on the wire). An answer that ends the connection makes every later one go nowhere; a body
    /// still being read then is dropped.
    mutating func answerReady(_ after: AfterAnswer) -> Action {
        switch state {
        case .draining(.finalAnswerQueued, _), .lingering, .closed:
            return .dropAnswer
        case .open, .draining:
            queueFinalAnswer(after)
            return .writeAnswer
        }
    }

    /// A streamed body ended (`after`: whether its answer ends the connection) or failed (`.abort`: the
    /// connection closes without the last chunk, which is how the client learns the body is cut).
    mutating func streamEnded(_ after: AfterAnswer) -> Action {
        queueFinalAnswer(after)
        return .none
    }

    /// Every answer before the request reading its body is queued: its `100 Continue` goes now, once.
    mutating func continueDue() -> Action {
        guard case .open(.body(var body), let idleDeadline) = state, body.continueOwed else { return .none }
        body.continueOwed = false
        state = .open(.body(body), idleDeadline: idleDeadline)
        return .sendContinue
    }

    /// The outbound queue is empty. After the final answer the connection lingers or closes; a client that
    /// finished sending is closed once nothing is owed to it; an open connection owed nothing starts its idle
    /// timeout. `unreadInput`: bytes of a further request are already read.
    mutating func outboundFlushed(_ backlog: Backlog, unreadInput: Bool, now: UInt64) -> Action {
        switch state {
        case .closed, .lingering:
            return .none
        case .draining(.finalAnswerQueued(.abort), _):
            return close(.aborted)
        case .draining(.finalAnswerQueued(let ending), let input):
            // Only a client that may still be sending needs the linger: after an error, or with bytes of a
            // further request already read. A finished exchange closes at once, which keeps shutdown quick.
            if input == .ended || (ending == .afterResponse && !unreadInput) { return close(.finished) }
            state = .lingering(deadline: MonotonicClock.deadline(from: now, after: limits.lingerTimeout))
            return .linger
        case .draining(_, .ended):
            return backlog.isEmpty ? close(.finished) : .none
        case .draining:
            return .none
        case .open(let reading, _):
            if backlog.isEmpty {
                state = .open(reading, idleDeadline: MonotonicClock.deadline(from: now, after: limits.idleTimeout))
            }
            return .none
        }
    }

    /// A write failed: the client is gone.
    mutating func writeFailed() -> Action {
        isClosed ? .none : close(.writeFailed)
    }

    /// The backlog shrank (an answer queued or written): reading paused for it resumes once the pipeline and
    /// the outbound queue both have room, whichever made it pause.
    mutating func backlogShrank(_ backlog: Backlog) -> Action {
        guard !isFull(backlog) else { return .none }
        switch state {
        case .open(.paused(let headDeadline), let idleDeadline):
            state = .open(headDeadline.map { .head(deadline: $0) } ?? .betweenRequests, idleDeadline: idleDeadline)
            return .resumeReading
        case .draining(let drain, .paused):
            state = .draining(drain, .discarding)
            return .resumeReading
        case .open, .draining, .lingering, .closed:
            return .none
        }
    }

    // MARK: - Time and the loop

    /// The periodic look at the deadlines: a write that made no progress, a request not read in time (408),
    /// an idle connection, the end of a linger. A connection that was to end and owes nothing ends now.
    mutating func timeoutsChecked(now: UInt64, _ backlog: Backlog) -> Action {
        switch state {
        case .closed:
            return .none
        case .lingering(let deadline):
            return now >= deadline ? close(.lingerEnded) : .none
        case .open, .draining:
            break
        }
        if let write = backlog.write {
            let deadline = MonotonicClock.deadline(from: write.lastProgress, after: limits.writeTimeout)
            return now >= deadline ? close(.writeTimeout) : .none
        }
        switch state {
        case .open(let reading, let idleDeadline):
            if let deadline = reading.requestDeadline {
                return now >= deadline ? requestUnreadable(.requestTimeout) : .none
            }
            return backlog.isEmpty && now >= idleDeadline ? close(.idleTimeout) : .none
        case .draining:
            return backlog.isEmpty ? close(.finished) : .none
        case .lingering, .closed:
            return .none
        }
    }

    /// Shutdown began: a connection owed nothing closes now; a busy one answers what it read, and finishes
    /// reading a request it is inside (`partialRequest`, or a body) and answers that too, then closes.
    mutating func shutdownRequested(_ backlog: Backlog, partialRequest: Bool) -> Action {
        switch state {
        case .closed, .open(.body, _):
            return .none
        case .open(let reading, _):
            if partialRequest { return .none }
            if backlog.isEmpty { return close(.shutdown) }
            state = .draining(.lastRequestRead, reading.drainInput)
            return .none
        case .draining, .lingering:
            return backlog.isEmpty ? close(.shutdown) : .none
        }
    }

    /// The loop closes the connection (its client hung up, shutdown's deadline, a poller failure).
    mutating func closeRequested(_ reason: CloseReason) -> Action {
        isClosed ? .none : close(reason)
    }

    // MARK: - Helpers

    private mutating func close(_ reason: CloseReason) -> Action {
        state = .closed
        return .close(reason)
    }

    /// An answer that ends the connection (`after`) is queued: nothing may follow it.
    private mutating func queueFinalAnswer(_ after: AfterAnswer) {
        let failing: Bool
        let input: Input
        switch state {
        case .open(let reading, _): (failing, input) = (false, reading.drainInput)
        case .draining(.lastRequestRead, let current): (failing, input) = (false, current)
        case .draining(.failing, let current): (failing, input) = (true, current)
        case .draining(.finalAnswerQueued, _), .lingering, .closed: return
        }
        switch after {
        case .keepOpen: break
        case .close: state = .draining(.finalAnswerQueued(failing ? .afterError : .afterResponse), input)
        case .abort: state = .draining(.finalAnswerQueued(.abort), input)
        }
    }
}
