import GronaMockPlatform

/// Writing: answers in request order onto the outbound queue, streamed bodies piece by piece, and the queue
/// onto the transport.
extension Connection {
    /// Takes a handler's answer; writes it and any later ones that were waiting for it, in order.
    func complete(_ sequence: UInt64, _ response: HTTPResponse) {
        guard !machine.isClosed else { return }
        guard sequence == nextToSend && streaming == nil else {
            finished[sequence] = response
            return
        }
        enqueue(sequence, response)
        sendWaitingAnswers()
    }

    /// The answers that waited for the one before them, in order, until one of them streams.
    func sendWaitingAnswers() {
        while streaming == nil, let next = finished.removeValue(forKey: nextToSend) { enqueue(nextToSend, next) }
        sendContinueIfDue()
        flush()
        resumeReadingIfRoom()
    }

    private func enqueue(_ sequence: UInt64, _ response: HTTPResponse) {
        nextToSend = sequence + 1
        guard let request = inFlight.removeValue(forKey: sequence) else { return }
        let keepAlive = request.keepAlive && !response.closesConnection && !loop.isShuttingDown
        // An HTTP/1.0 client reads a streamed body to the close.
        let streamKeepsAlive = keepAlive && !request.http10
        let streamsBody = response.stream != nil && !request.isHead && !response.status.forbidsBody
        let after: StateMachine.AfterAnswer
        switch response.delivery {
        case .whole where response.stream != nil: after = streamsBody || streamKeepsAlive ? .keepOpen : .close
        case .whole: after = keepAlive ? .keepOpen : .close
        case .dropConnection, .truncated: after = .abort
        }
        guard case .writeAnswer = machine.answerReady(after) else {
            // After the answer that closes the connection, nothing more may follow it on the wire.
            response.stream?.cancel()
            return
        }
        let sendsBody = !request.isHead && !response.status.forbidsBody && !response.body.isEmpty
        switch response.delivery {
        case .whole where response.stream != nil:
            queue(loop.encoder.head(for: response, keepAlive: streamKeepsAlive, http10: request.http10))
            if let stream = response.stream, streamsBody {
                streaming = StreamingBody(stream: stream, closesAfter: !streamKeepsAlive, http10: request.http10)
                pullIfRoom()
            } else {
                response.stream?.cancel()
            }
            observe(request, response, sendsBody: false)
            return
        case .whole:
            queue(loop.encoder.head(for: response, keepAlive: keepAlive, http10: request.http10))
            if sendsBody { queue(response.body) }
        case .dropConnection:
            break
        case .truncated(let bytes):
            queue(loop.encoder.head(for: response, keepAlive: keepAlive, http10: request.http10))
            if sendsBody && bytes > 0 { queue(Array(response.body.prefix(bytes))) }
        }
        observe(request, response, sendsBody: sendsBody)
    }

    /// Metrics and the access log for an answer as it is queued.
    private func observe(_ request: RequestInFlight, _ response: HTTPResponse, sendsBody: Bool) {
        loop.context.answered(request, response, sendsBody: sendsBody, peer: peer)
    }

    /// Writes the interim `100 Continue` once every earlier response has gone out (RFC 9110 §15.2.1).
    func sendContinueIfDue() {
        guard streaming == nil, machine.requestReadingBody?.sequence == nextToSend else { return }
        perform(machine.continueDue())
    }

    func queue(_ bytes: [UInt8]) {
        outbound.append(bytes, at: loop.now)
    }

    func writable() {
        guard !machine.isClosed else { return }
        // A read that waited to write (a TLS handshake message) goes on once the socket has room.
        let readWaiting = transport.interestNeeded.contains(.write)
        flush()
        resumeReadingIfRoom()
        if readWaiting { readable() }
    }

    func flush() {
        while !outbound.isEmpty && !machine.isClosed {
            let sent: Int
            do {
                sent = try outbound.send(through: transport, scratch: loop.sendScratch, at: loop.now)
            } catch {
                perform(machine.writeFailed())
                return
            }
            if sent == 0 { break }
        }
        if outbound.isEmpty && !machine.isClosed {
            let action = machine.outboundFlushed(backlog, unreadInput: parser.bufferedByteCount > 0, now: loop.now)
            switch action {
            case .none:
                break
            default:
                // The connection lingers or closes: nothing more is pulled or watched for here.
                perform(action)
                return
            }
        }
        pullIfRoom()
        updateInterest()
    }

    // MARK: - Streamed bodies

    /// Asks the stream for its next piece when the socket's queue has room and no piece is being made.
    private func pullIfRoom() {
        guard var body = streaming, !body.pulling, !machine.isClosed,
            outbound.byteCount < HTTPBodyStream.lowWater
        else { return }
        body.pulling = true
        streaming = body
        let box = LoopBound(self)
        body.stream.pull { [loop] piece in loop.execute { box.value.streamed(piece) } }
    }

    /// A piece made: queued as a chunk; the end queues the last chunk and lets the answers behind it go.
    private func streamed(_ piece: HTTPBodyStream.Piece) {
        guard !machine.isClosed, var body = streaming else { return }
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
            perform(machine.streamEnded(body.closesAfter || loop.isShuttingDown ? .close : .keepOpen))
            sendWaitingAnswers()
        case .failed:
            // The head is sent: closing without the last chunk is how the client learns the body is cut.
            streaming = nil
            perform(machine.streamEnded(.abort))
        }
        flush()
        resumeReadingIfRoom()
    }
}
