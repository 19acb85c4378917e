import GronaMockPlatform

/// Reading: bytes from the transport into the parser, requests out of it to their handlers.
extension Connection {
    func readable() {
        guard !machine.isClosed else { return }
        // A write that waited for the client's bytes (TLS) goes on first.
        if transport.interestNeeded.contains(.read) { flush() }
        var reads = 0
        reading: while machine.readsSocket {
            let count: Int
            let more: Bool
            switch transport.receive(into: loop.readBuffer) {
            case .bytes(let read, let mayHaveMore):
                (count, more) = (read, mayHaveMore)
            case .wouldBlock:
                break reading
            case .end:
                perform(machine.peerFinished(backlog, holdsRequest: holdsRequest))
                return
            case .failed:
                perform(machine.readFailed())
                return
            case .refuse(let error):
                fail(with: error)
                return
            }
            reads += 1
            guard case .parse = machine.bytesRead() else {
                // Discarding (draining, lingering), but still a bounded amount per wake-up, so one client
                // cannot hold the loop.
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

    /// Parses and dispatches every complete request buffered, until the pipeline is full.
    func processInput() {
        parsing: while true {
            switch machine.nextRequestWanted(backlog) {
            case .parse:
                break
            case .pauseReading:
                updateInterest()
                return
            default:
                break parsing
            }
            do {
                guard let event = try parser.next() else { break }
                switch event {
                case .head(let head):
                    try startRequest(head)
                case .body(let body):
                    perform(machine.bodyRead(body, shuttingDown: loop.isShuttingDown))
                }
            } catch {
                fail(with: HTTPError(error))
                return
            }
        }
        perform(machine.inputParsed(partialRequest: parser.isInsideRequest, now: loop.now))
    }

    private func startRequest(_ head: HTTPRequestHead) throws(HTTPParseError) {
        let path = head.path
        let match = loop.context.router.match(head.method, path: path)
        let sequence = nextSequence
        nextSequence += 1
        let record = RequestInFlight(
            isHead: head.method == .head, keepAlive: head.keepAlive, http10: head.version == .http10,
            method: head.method, path: path, route: match.pattern,
            started: configuration.accessLog || loop.context.observer != nil ? MonotonicClock.now() : 0)
        // A client that sent its body along with the head is not waiting for `100 Continue`.
        let expectsContinue = head.expectsContinue && head.framing != .none && parser.bufferedByteCount == 0
        perform(
            machine.headRead(
                RequestAwaitingBody(head: head, match: match, sequence: sequence, record: record),
                keepAlive: head.keepAlive, expectsContinue: expectsContinue, now: loop.now))
        // A request with a body refused on its head (no admin token) is answered without reading the body,
        // and the connection closes; one without a body meets the same check in its route group.
        if case .route(_, _, _, let pattern) = match, head.framing != .none,
            let refusal = loop.context.router.refusal(for: head, pattern: pattern)
        {
            fail(with: refusal)
            return
        }
        try parser.acceptBody(limit: match.bodyLimit)
        sendContinueIfDue()
    }

    /// Hands a request read whole to its handler.
    func dispatch(_ request: RequestAwaitingBody, body: [UInt8]) {
        let sequence = request.sequence
        switch request.match {
        case .failure(let error):
            inFlight[sequence] = request.record
            complete(sequence, error.response)
        case .route(let handler, let parameters, _, _):
            let httpRequest = HTTPRequest(
                head: request.head, body: body, pathParameters: parameters, remoteAddress: peer)
            let responder = HTTPResponder(connection: ConnectionLink(self, sequence: sequence))
            var record = request.record
            record.responder = responder
            inFlight[sequence] = record
            handler(httpRequest, responder)
            if let response = responder.finishDispatch() { complete(sequence, response) }
        }
    }

    /// A request that cannot be read answers with its error and closes the connection.
    func fail(with error: HTTPError) {
        perform(machine.requestUnreadable(error))
    }

    /// Queues `error` as the answer to `request` (the one whose body was being read), or to a request of its
    /// own when none was read yet; the answer closes the connection.
    func answer(_ error: HTTPError, for request: RequestAwaitingBody?) {
        let sequence: UInt64
        if let request {
            sequence = request.sequence
            inFlight[sequence] = request.record
        } else {
            sequence = nextSequence
            nextSequence += 1
            inFlight[sequence] = RequestInFlight(
                isHead: false, keepAlive: false, http10: false, method: .other("-"), path: "-", route: "unreadable",
                started: loop.now)
        }
        var response = error.response
        response.closesConnection = true
        complete(sequence, response)
    }

    /// Reading paused for a full pipeline or a full outbound queue resumes once both have room, whichever
    /// made it: a handler answering, or the client reading a large answer. Requests already buffered are
    /// parsed at once, since no readiness event will announce them.
    func resumeReadingIfRoom() {
        perform(machine.backlogShrank(backlog))
    }

    func resumeReading() {
        updateInterest()
        processInput()
        // Bytes the transport read ahead get no readiness event of their own.
        if transport.hasBufferedInput && machine.readsSocket { readable() }
    }
}
