import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One client connection: reads requests, dispatches them, and writes the answers back in request order
/// (pipelining, RFC 9112 §9.3.2), whichever order the handlers finish in.
///
/// Confined to its event loop's thread; handlers that answer later reach it through `EventLoop.execute`.
///
/// One file of about 540 lines, on purpose: reading, writing, streamed bodies, held requests and closing all
/// move the one `phase` and the flow-control flags beside it, which are private so that nothing outside can
/// change them between two steps. Split across extensions in other files they would have to be internal to the
/// module; the parts that need no such state (the parser, `OutboundQueue`, `ConnectionPhase`, `RequestInFlight`,
/// `HTTPBodyStream`, the socket or TLS under it as a `ConnectionTransport`, the reports of answered and
/// abandoned requests) already have files of their own.
final class Connection {
    let token: UInt64
    let fd: Int32
    let peer: String
    /// The socket itself, or a layer over it (TLS): everything the connection reads and writes goes through it.
    private let transport: any ConnectionTransport
    private unowned let loop: EventLoop
    private var parser: HTTPRequestParser
    private var interest: Poller.Interest = .read

    /// The head being read, waiting for its body.
    private var current: (head: HTTPRequestHead, match: Router.Match, sequence: UInt64)?
    private var nextSequence: UInt64 = 0
    private var nextToSend: UInt64 = 0
    private var inFlight: [UInt64: RequestInFlight] = [:]
    private var finished: [UInt64: HTTPResponse] = [:]
    /// The request whose `100 Continue` waits for the responses before it.
    private var continueFor: UInt64?

    private var outbound = OutboundQueue()
    /// The streamed body being sent (see `HTTPBodyStream`): later answers wait behind it, and the
    /// connection's end (idle, close, final answer) waits for its last piece.
    private var streaming: StreamingBody?

    /// The lifecycle: see `ConnectionPhase` for its transitions.
    private var phase = ConnectionPhase.open
    /// Flow control: the pipeline or the outbound queue is full, so the socket is not read for now.
    private var readPaused = false
    /// The client finished sending (end of stream): close once every request read so far is answered.
    private var peerClosed = false

    // Deadlines, in monotonic nanoseconds.
    private var requestStarted = false
    private var requestDeadline: UInt64 = 0
    private var idleDeadline: UInt64
    private var lastWriteProgress: UInt64 = 0

    private static let readHighWater = 4 * 1024 * 1024

    init(token: UInt64, fd: Int32, peer: String, transport: any ConnectionTransport, loop: EventLoop) {
        self.token = token
        self.fd = fd
        self.peer = peer
        self.transport = transport
        self.loop = loop
        parser = HTTPRequestParser(limits: loop.context.configuration.parserLimits)
        // A new connection has the header timeout to start its first request: over TLS that includes the
        // handshake, so a client that opens and says nothing, or stops mid-handshake, is closed by it.
        idleDeadline = MonotonicClock.deadline(from: loop.now, after: loop.context.configuration.headerTimeout)
    }

    private var configuration: HTTPServer.Configuration { loop.context.configuration }

    // MARK: - Reading

    func readable() {
        guard !phase.isClosed else { return }
        // A write that waited for the client's bytes (TLS) goes on first.
        if transport.interestNeeded.contains(.read) { flush() }
        var reads = 0
        reading: while !readPaused && !peerClosed && !phase.isClosed {
            let count: Int
            let more: Bool
            switch transport.receive(into: loop.readBuffer) {
            case .bytes(let read, let mayHaveMore):
                (count, more) = (read, mayHaveMore)
            case .wouldBlock:
                break reading
            case .end:
                peerEnded()
                return
            case .failed:
                close()
                return
            case .refuse(let error):
                fail(with: error)
                return
            }
            reads += 1
            // Draining before a close, or past the last request this connection will read: discard.
            if !phase.readsRequests {
                // Discarding, but still a bounded amount per wake-up, so one client cannot hold the loop.
                if !more || reads >= 16 { break }
                continue
            }
            parser.append(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]))
            processInput()
            if !more { break }
        }
        // A TLS read may have changed what the transport waits for (a handshake message to write).
        updateInterest()
    }

    /// The client finished sending. Answer what it asked, then close; a half-read request is dropped. A
    /// request a handler holds ends the connection now: its client is taken as gone (`HTTPResponder.hold`).
    private func peerEnded() {
        peerClosed = true
        if phase == .open { phase = .lastRequestRead }
        requestStarted = false
        // A request whose body was cut off can never be completed, and no handler has seen it yet: drop it,
        // or the connection would wait for it for ever (RFC 9112 §8: an incomplete message is not processed).
        if let cut = current {
            inFlight[cut.sequence] = nil
            if continueFor == cut.sequence { continueFor = nil }
            current = nil
        }
        let streamWithoutReader = streaming?.stream.stopsWhenClientCloses == true
        // A held request's client is taken as gone (see `HTTPResponder.hold`): the hold ends now.
        if streamWithoutReader || phase.isLingering || holdsRequest
            || (inFlight.isEmpty && outbound.isEmpty && finished.isEmpty && streaming == nil)
        {
            close()
        } else {
            // Every request already read is still owed its answer: `flush` closes once all are written.
            updateInterest()
        }
    }

    /// Parses and dispatches every complete request buffered, until the pipeline is full.
    private func processInput() {
        while phase.readsRequests {
            // A request whose body is being read finishes first, or it could wait out its body timeout.
            let full =
                inFlight.count >= configuration.maxPipelinedRequests || outbound.byteCount >= Self.readHighWater
            if full && current == nil {
                readPaused = true
                updateInterest()
                return
            }
            do {
                guard let event = try parser.next() else { break }
                switch event {
                case .head(let head):
                    try startRequest(head)
                case .body(let body):
                    finishRequest(body)
                }
            } catch {
                fail(with: HTTPError(error))
                return
            }
        }
        trackRequestClock()
    }

    private func startRequest(_ head: HTTPRequestHead) throws(HTTPParseError) {
        let match = loop.context.router.match(head.method, path: head.path)
        let sequence = nextSequence
        nextSequence += 1
        inFlight[sequence] = RequestInFlight(
            isHead: head.method == .head, keepAlive: head.keepAlive, http10: head.version == .http10,
            method: head.method, path: head.path, route: match.pattern,
            started: configuration.accessLog || loop.context.observer != nil ? MonotonicClock.now() : 0)
        current = (head, match, sequence)
        // A request with a body refused on its head (no admin token) is answered without reading the body,
        // and the connection closes; one without a body meets the same check in its route group.
        if case .route(_, _, _, let pattern) = match, head.framing != .none,
            let refusal = loop.context.router.refusal(for: head, pattern: pattern)
        {
            fail(with: refusal)
            return
        }
        requestDeadline = MonotonicClock.deadline(from: loop.now, after: configuration.bodyTimeout)
        try parser.acceptBody(limit: match.bodyLimit)
        if head.expectsContinue && head.framing != .none && parser.bufferedByteCount == 0 {
            continueFor = sequence
            sendContinueIfDue()
        }
    }

    private func finishRequest(_ body: [UInt8]) {
        guard let (head, match, sequence) = current else { return }
        current = nil
        requestStarted = false
        if continueFor == sequence { continueFor = nil }
        if (!head.keepAlive || loop.isShuttingDown) && phase == .open { phase = .lastRequestRead }
        switch match {
        case .failure(let error):
            complete(sequence, error.response)
        case .route(let handler, let parameters, _, _):
            let request = HTTPRequest(head: head, body: body, pathParameters: parameters, remoteAddress: peer)
            let box = LoopBound(self)
            let responder = HTTPResponder(
                deliver: { [loop] response in loop.execute { box.value.complete(sequence, response) } },
                held: { [loop] in loop.execute { box.value.holdDeclared() } })
            inFlight[sequence]?.responder = responder
            handler(request, responder)
            if let response = responder.finishDispatch() { complete(sequence, response) }
        }
    }

    /// A request that cannot be read answers with its error and closes the connection.
    private func fail(with error: HTTPError) {
        phase = .failing
        let sequence: UInt64
        if let current {
            sequence = current.sequence
        } else {
            sequence = nextSequence
            nextSequence += 1
            inFlight[sequence] = RequestInFlight(
                isHead: false, keepAlive: false, http10: false, method: .other("-"), path: "-", route: "unreadable",
                started: loop.now)
        }
        current = nil
        var response = error.response
        response.closesConnection = true
        complete(sequence, response)
    }

    // MARK: - Writing

    /// Takes a handler's answer; writes it and any later ones that were waiting for it, in order.
    func complete(_ sequence: UInt64, _ response: HTTPResponse) {
        guard !phase.isClosed else { return }
        guard sequence == nextToSend && streaming == nil else {
            finished[sequence] = response
            return
        }
        enqueue(sequence, response)
        sendWaitingAnswers()
    }

    /// The answers that waited for the one before them, in order, until one of them streams.
    private func sendWaitingAnswers() {
        while streaming == nil, let next = finished.removeValue(forKey: nextToSend) { enqueue(nextToSend, next) }
        sendContinueIfDue()
        flush()
        resumeReadingIfRoom()
    }

    /// Reading paused for a full pipeline or a full outbound queue resumes once both have room, whichever
    /// made it: a handler answering, or the client reading a large answer. Requests already buffered are
    /// parsed at once, since no readiness event will announce them.
    private func resumeReadingIfRoom() {
        guard readPaused && !phase.isClosed else { return }
        guard inFlight.count < configuration.maxPipelinedRequests && outbound.byteCount < Self.readHighWater else {
            return
        }
        readPaused = false
        updateInterest()
        processInput()
        // Bytes the transport read ahead get no readiness event of their own.
        if transport.hasBufferedInput && !readPaused { readable() }
    }

    private func enqueue(_ sequence: UInt64, _ response: HTTPResponse) {
        nextToSend = sequence + 1
        guard let request = inFlight.removeValue(forKey: sequence) else { return }
        // After a response that closes the connection, nothing more may follow it on the wire.
        if case .finalResponseQueued = phase { return }
        let keepAlive = request.keepAlive && !response.closesConnection && !loop.isShuttingDown
        let sendsBody = !request.isHead && !response.status.forbidsBody && !response.body.isEmpty
        var abort = false
        switch response.delivery {
        case .whole where response.stream != nil:
            // An HTTP/1.0 client reads a streamed body to the close.
            let keepsAlive = keepAlive && !request.http10
            queue(loop.encoder.head(for: response, keepAlive: keepsAlive, http10: request.http10))
            if let stream = response.stream, !request.isHead && !response.status.forbidsBody {
                streaming = StreamingBody(stream: stream, closesAfter: !keepsAlive, http10: request.http10)
                pullIfRoom()
                observe(request, response, sendsBody: false)
                return
            }
            response.stream?.cancel()
            if !keepsAlive { phase = .finalResponseQueued(phase.ending(abort: false)) }
            observe(request, response, sendsBody: false)
            return
        case .whole:
            queue(loop.encoder.head(for: response, keepAlive: keepAlive, http10: request.http10))
            if sendsBody { queue(response.body) }
        case .dropConnection:
            abort = true
        case .truncated(let bytes):
            queue(loop.encoder.head(for: response, keepAlive: keepAlive, http10: request.http10))
            if sendsBody && bytes > 0 { queue(Array(response.body.prefix(bytes))) }
            abort = true
        }
        if !keepAlive || abort { phase = .finalResponseQueued(phase.ending(abort: abort)) }
        observe(request, response, sendsBody: sendsBody)
    }

    /// Metrics and the access log for an answer as it is queued.
    private func observe(_ request: RequestInFlight, _ response: HTTPResponse, sendsBody: Bool) {
        loop.context.answered(request, response, sendsBody: sendsBody, peer: peer)
    }

    /// Writes the interim `100 Continue` once every earlier response has gone out (RFC 9110 §15.2.1).
    private func sendContinueIfDue() {
        guard let sequence = continueFor, sequence == nextToSend, streaming == nil else { return }
        continueFor = nil
        queue(ResponseEncoder.continueResponse)
        flush()
    }

    private func queue(_ bytes: [UInt8]) {
        if outbound.isEmpty { lastWriteProgress = loop.now }
        outbound.append(bytes)
    }

    func writable() {
        guard !phase.isClosed else { return }
        // A read that waited to write (a TLS handshake message) goes on once the socket has room.
        let readWaiting = transport.interestNeeded.contains(.write)
        flush()
        resumeReadingIfRoom()
        if readWaiting { readable() }
    }

    private func flush() {
        while !outbound.isEmpty && !phase.isClosed {
            let sent: Int
            do {
                sent = try outbound.send(through: transport, scratch: loop.sendScratch)
            } catch {
                close()
                return
            }
            if sent == 0 { break }
            lastWriteProgress = loop.now
        }
        if outbound.isEmpty && !phase.isClosed {
            if peerClosed && inFlight.isEmpty && finished.isEmpty && streaming == nil {
                close()
                return
            }
            if case .finalResponseQueued(let ending) = phase {
                if ending == .abort {
                    close(cut: true)
                } else {
                    startLingeringClose(afterError: ending == .afterError)
                }
                return
            }
            if inFlight.isEmpty && streaming == nil {
                idleDeadline = MonotonicClock.deadline(from: loop.now, after: configuration.idleTimeout)
            }
        }
        pullIfRoom()
        updateInterest()
    }

    // MARK: - Streamed bodies

    /// Asks the stream for its next piece when the socket's queue has room and no piece is being made.
    private func pullIfRoom() {
        guard var body = streaming, !body.pulling, !phase.isClosed,
            outbound.byteCount < HTTPBodyStream.lowWater
        else { return }
        body.pulling = true
        streaming = body
        let box = LoopBound(self)
        body.stream.pull { [loop] piece in loop.execute { box.value.streamed(piece) } }
    }

    /// A piece made: queued as a chunk; the end queues the last chunk and lets the answers behind it go.
    private func streamed(_ piece: HTTPBodyStream.Piece) {
        guard !phase.isClosed, var body = streaming else { return }
        body.pulling = false
        switch piece {
        case .bytes(let bytes):
            streaming = body
            if !bytes.isEmpty {
                if body.http10 {
                    queue(bytes)
                } else {
                    // The chunk's frame queued around the piece, never copied into it: a piece is a page of
                    // an export, hundreds of KiB.
                    queue(HTTPBodyStream.chunkHead(bytes.count))
                    queue(bytes)
                    queue(HTTPBodyStream.chunkEnd)
                }
            }
        case .end:
            streaming = nil
            if !body.http10 { queue(HTTPBodyStream.lastChunk) }
            if body.closesAfter || loop.isShuttingDown { phase = .finalResponseQueued(.afterResponse) }
            sendWaitingAnswers()
        case .failed:
            // The head is sent: closing without the last chunk is how the client learns the body is cut.
            streaming = nil
            phase = .finalResponseQueued(.abort)
        }
        flush()
        resumeReadingIfRoom()
    }

    // MARK: - Interest, timeouts, closing

    private func updateInterest() {
        guard !phase.isClosed else { return }
        var wanted: Poller.Interest = []
        if !readPaused && !peerClosed {
            wanted.insert(.read)
        } else if !peerClosed && holdsRequest {
            // Not reading, the client's end would go unseen behind the bytes it sent before it, and a held
            // request with it: watch for the end alone.
            wanted.insert(.readHangup)
        }
        if !outbound.isEmpty { wanted.insert(.write) }
        wanted.formUnion(transport.interestNeeded)
        guard wanted != interest else { return }
        interest = wanted
        loop.setInterest(self, wanted)
    }

    /// Starts the header timeout at a request's first byte, so trickling bytes cannot extend it.
    private func trackRequestClock() {
        let inside = parser.isInsideRequest
        if inside && !requestStarted && current == nil {
            requestStarted = true
            requestDeadline = MonotonicClock.deadline(from: loop.now, after: configuration.headerTimeout)
        } else if !inside {
            requestStarted = false
        }
    }

    func checkTimeouts(now: UInt64) {
        switch phase {
        case .closed:
            return
        case .lingering(let deadline):
            if now >= deadline { close() }
            return
        default:
            break
        }
        if !outbound.isEmpty {
            if now >= MonotonicClock.deadline(from: lastWriteProgress, after: configuration.writeTimeout) { close() }
        } else if phase.readsRequests && (current != nil || requestStarted) {
            if now >= requestDeadline { fail(with: .requestTimeout) }
        } else if inFlight.isEmpty && streaming == nil && now >= idleDeadline {
            close()
        }
    }

    /// Shutdown: an idle connection closes now; a busy one finishes the request it is in and then closes.
    func shutdownRequested() {
        if inFlight.isEmpty && outbound.isEmpty && streaming == nil && current == nil && !parser.isInsideRequest {
            close()
            return
        }
        if current == nil && !parser.isInsideRequest && phase == .open { phase = .lastRequestRead }
        if inFlight.isEmpty && outbound.isEmpty && streaming == nil && !phase.readsRequests { close() }
    }

    /// Half-closes and reads what the client is still sending for a moment before closing, so that the
    /// kernel does not answer unread bytes with a reset that destroys the response (RFC 9112 §9.6).
    private func startLingeringClose(afterError: Bool) {
        guard !phase.isLingering else { return }
        // Only a client that may still be sending needs the linger: after an error, or with bytes of a
        // further request already read. A finished exchange closes at once, which keeps shutdown quick.
        if peerClosed || (!afterError && parser.bufferedByteCount == 0) {
            close()
            return
        }
        transport.shutdownWrite()
        phase = .lingering(deadline: loop.now + 2_000_000_000)
        readPaused = false
        updateInterest()
    }

    /// `cut`: the connection ends inside an answer, on purpose or by a failed stream (see
    /// `ConnectionTransport.close(cut:)`). A close with bytes still queued or a body still streaming (a write
    /// timeout, the shutdown deadline) ends inside an answer too, whoever called it.
    func close(cut: Bool = false) {
        guard !phase.isClosed else { return }
        phase = .closed
        loop.remove(self)
        transport.close(cut: cut || !outbound.isEmpty || streaming != nil)
        outbound.removeAll()
        finished.removeAll()
        streaming?.stream.cancel()
        streaming = nil
        abandonUnanswered()
    }

    // MARK: - Held requests

    /// Whether a handler holds a request of this connection that is not answered yet (`HTTPResponder.hold`).
    /// The responders keep that state; this asks them, so that it cannot disagree with them.
    private var holdsRequest: Bool {
        inFlight.values.contains { $0.responder?.isHeld == true }
    }

    /// A handler has just held one of this connection's requests: if its client already finished sending, it
    /// is gone, and the hold ends now; otherwise, with reading paused, its end is watched for from now on.
    private func holdDeclared() {
        guard !phase.isClosed else { return }
        if peerClosed && holdsRequest {
            close()
        } else {
            updateInterest()
        }
    }

    /// The client finished sending, reported without a read (`Poller.Interest.readHangup`, asked for while
    /// reading is paused and a request is held): the held request's client is gone. Without a hold any more,
    /// the end waits for the read that reaches it, behind the requests the client sent before it.
    func readHangup() {
        guard !phase.isClosed && !peerClosed else { return }
        if holdsRequest {
            close()
        } else {
            updateInterest()
        }
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
