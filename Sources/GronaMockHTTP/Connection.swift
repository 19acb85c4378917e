import GronaMockPlatform

/// One client connection: reads requests, dispatches them, and writes the answers back in request order
/// (pipelining, RFC 9112 §9.3.2), whichever order the handlers finish in.
///
/// Confined to its event loop's thread; handlers that answer later reach it through `EventLoop.execute`.
///
/// A driver of `ConnectionStateMachine`, which owns the lifecycle: the connection tells it what happened (bytes
/// read, a head parsed, an answer ready, the queue flushed, the client gone, a deadline looked at) and performs
/// the action it returns. What the connection keeps is data: the parser, the requests in flight and the answers
/// waiting their turn, the outbound queue, a streamed body, the transport. Its work is split by what it does:
/// reading and dispatching (`Connection+Reading`), writing answers and streamed bodies (`Connection+Writing`),
/// and here the actions, interest, deadlines, holds and closing.
final class Connection {
    typealias StateMachine = ConnectionStateMachine<RequestAwaitingBody>

    let token: UInt64
    let fd: Int32
    let peer: String
    /// The socket itself, or a layer over it (TLS): everything the connection reads and writes goes through it.
    let transport: any ConnectionTransport
    unowned let loop: EventLoop

    // The state below is read and changed on the loop's thread alone, and each access is one call that
    // returns before the next begins (a `mutating` input of the machine, a dictionary store): no two can
    // overlap, so the runtime's exclusivity check on each, 1.5% of the configuration endpoint's time
    // (bench/http.sh), is left out.

    @exclusivity(unchecked) var parser: HTTPRequestParser
    @exclusivity(unchecked) private var interest: Poller.Interest = .read
    /// The lifecycle; changed only through its inputs.
    @exclusivity(unchecked) var machine: StateMachine

    @exclusivity(unchecked) var nextSequence: UInt64 = 0
    @exclusivity(unchecked) var nextToSend: UInt64 = 0
    /// Requests read whole and not yet queued to be written, by sequence.
    @exclusivity(unchecked) var inFlight: [UInt64: RequestInFlight] = [:]
    /// Answers ready before their turn (a request before them is still unanswered), by sequence.
    @exclusivity(unchecked) var finished: [UInt64: HTTPResponse] = [:]
    @exclusivity(unchecked) var outbound = OutboundQueue()
    /// The streamed body being sent (see `HTTPBodyStream`): later answers wait behind it, and the
    /// connection's end (idle, close, final answer) waits for its last piece.
    @exclusivity(unchecked) var streaming: StreamingBody?

    init(token: UInt64, fd: Int32, peer: String, transport: any ConnectionTransport, loop: EventLoop) {
        self.token = token
        self.fd = fd
        self.peer = peer
        self.transport = transport
        self.loop = loop
        let configuration = loop.context.configuration
        parser = HTTPRequestParser(limits: configuration.parserLimits)
        machine = StateMachine(
            limits: StateMachine.Limits(
                headerTimeout: configuration.headerTimeout, bodyTimeout: configuration.bodyTimeout,
                idleTimeout: configuration.idleTimeout, writeTimeout: configuration.writeTimeout,
                maxPipelinedRequests: configuration.maxPipelinedRequests),
            now: loop.now)
    }

    var configuration: HTTPServer.Configuration { loop.context.configuration }

    /// What the connection still owes its client, as the state machine's inputs take it: computed from the
    /// buffers each time, so that it cannot disagree with them.
    var backlog: StateMachine.Backlog {
        StateMachine.Backlog(
            unanswered: inFlight.count,
            stream: streaming.map { .init(stopsWhenClientCloses: $0.stream.stopsWhenClientCloses) },
            write: outbound.isEmpty ? nil : .init(bytes: outbound.byteCount, lastProgress: outbound.lastProgress))
    }

    // MARK: - Actions

    /// Performs what the state machine asked. `parse`, `discard`, `writeAnswer` and `dropAnswer` answer a
    /// question of the caller (what to do with bytes, with an answer), which acts on them itself.
    func perform(_ action: StateMachine.Action) {
        switch action {
        case .none, .parse, .discard, .writeAnswer, .dropAnswer:
            break
        case .pauseReading, .updateInterest:
            updateInterest()
        case .resumeReading:
            resumeReading()
        case .dispatch(let request, let body):
            dispatch(request, body: body)
        case .answerError(let error, let request):
            answer(error, for: request)
        case .sendContinue:
            queue(ResponseEncoder.continueResponse)
            flush()
        case .linger:
            transport.shutdownWrite()
            updateInterest()
        case .close(let reason):
            release(cut: reason.cutsAnswer)
        }
    }

    func updateInterest() {
        guard !machine.isClosed else { return }
        var wanted = machine.interest(writePending: !outbound.isEmpty, holdsRequest: holdsRequest)
        wanted.formUnion(transport.interestNeeded)
        guard wanted != interest else { return }
        interest = wanted
        loop.setInterest(self, wanted)
    }

    // MARK: - Time and shutdown

    func checkTimeouts(now: UInt64) {
        perform(machine.timeoutsChecked(now: now, backlog))
    }

    /// Shutdown: an idle connection closes now; a busy one finishes the request it is in and then closes.
    func shutdownRequested() {
        perform(machine.shutdownRequested(backlog, partialRequest: parser.isInsideRequest))
    }

    // MARK: - Held requests

    /// Whether a handler holds a request of this connection that is not answered yet (`HTTPResponder.hold`).
    /// The responders keep that state; this asks them, so that it cannot disagree with them.
    var holdsRequest: Bool {
        inFlight.values.contains { $0.responder?.isHeld == true }
    }

    /// A handler has just held one of this connection's requests.
    func holdDeclared() {
        perform(machine.holdStarted(holdsRequest: holdsRequest))
    }

    /// The client finished sending, reported without a read (`Poller.Interest.readHangup`).
    func readHangup() {
        perform(machine.hangupSeen(holdsRequest: holdsRequest))
    }

    // MARK: - Closing

    /// The loop closes the connection: its client hung up, shutdown's deadline passed, or the poller refused it.
    func close(_ reason: StateMachine.CloseReason) {
        perform(machine.closeRequested(reason))
    }

    /// Releases everything the connection holds. `cut`: the connection ends inside an answer, on purpose or by
    /// a failed stream (see `ConnectionTransport.close(cut:)`). A close with bytes still queued or a body still
    /// streaming (a write timeout, the shutdown deadline) ends inside an answer too, whatever the reason.
    private func release(cut: Bool) {
        loop.remove(self)
        transport.close(cut: cut || !outbound.isEmpty || streaming != nil)
        outbound.removeAll()
        finished.removeAll()
        streaming?.stream.cancel()
        streaming = nil
        abandonUnanswered()
    }

    /// The connection closed with requests still unanswered: each one's responder is abandoned, which
    /// releases its holds once (a delay's timer, a long-poll's waiter) and makes a late answer go nowhere;
    /// each is logged and counted as abandoned. A request no handler saw yet (a body cut short) is dropped.
    private func abandonUnanswered() {
        guard !inFlight.isEmpty else { return }
        let unanswered = inFlight.sorted { $0.key < $1.key }.map(\.value)
        inFlight.removeAll()
        for request in unanswered where request.responder?.abandon() == true {
            loop.context.abandoned(request, peer: peer)
        }
    }
}
