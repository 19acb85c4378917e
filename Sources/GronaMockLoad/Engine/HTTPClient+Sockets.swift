import GronaMockPlatform

/// What `HTTPClient` does when the poller says a socket is ready: finish a connect, write the request, read
/// the answer. Each outcome goes through the connection's `ClientConnectionState`.
extension HTTPClient {
    func writable(_ connection: ClientConnection) {
        switch connection.state.state {
        case .connecting:
            if Socket.pendingError(connection.fd) == 0 {
                perform(connection.state.connected(secure: configuration.tls != nil), on: connection)
            } else {
                perform(connection.state.connectionEnded(), on: connection)
            }
        case .handshaking:
            handshake(connection)
        case .sending:
            send(connection)
        case .idle, .awaitingResponse, .closed:
            setInterest(connection, .read)
        }
    }

    /// Reads what the socket holds, at most `readsPerWakeup` buffers: a server that sends faster than it is read
    /// must not keep the loop here while visits fall due and deadlines pass (the poller is level-triggered,
    /// so the rest is read on the next turn). An answer is read no further than its grant of the answer
    /// memory lets it keep (`readRoom`); an idle connection's bytes are never kept.
    func readable(_ connection: ClientConnection) {
        switch connection.state.state {
        case .connecting: return
        case .handshaking: return handshake(connection)
        case .idle, .sending, .awaitingResponse, .closed: break
        }
        // Bytes the TLS session decrypted and kept beyond what was read now get a turn of their own.
        defer { noteBufferedTLS(connection) }
        var reads = 0
        while connection.fd >= 0 && reads < Self.readsPerWakeup {
            let room: Int
            if connection.state.carriesRequest {
                guard let allowed = readRoom(connection) else { return }
                room = allowed
            } else {
                room = scratch.count
            }
            reads += 1
            let count: Int?
            var arrival: Int64 = 0
            do {
                count = try receive(
                    connection, into: UnsafeMutableRawBufferPointer(rebasing: scratch[..<room]), arrival: &arrival)
            } catch {
                perform(connection.state.connectionEnded(), on: connection)
                return
            }
            guard let count else { break }
            if count == 0 {
                let whole = connection.parser.endOfStream()
                perform(connection.state.connectionEnded(answerComplete: whole), on: connection)
                return
            }
            if arrival > 0 { connection.arrival = arrival }
            guard connection.state.carriesRequest else {
                // Bytes nobody asked for on an idle connection: it cannot be trusted with the next request.
                perform(connection.state.malformedResponse(), on: connection)
                return
            }
            do {
                try connection.feed(UnsafeRawBufferPointer(rebasing: scratch[..<count]))
            } catch .tooLarge {
                perform(connection.state.answerTooLarge(), on: connection)
                return
            } catch {
                perform(connection.state.malformedResponse(), on: connection)
                return
            }
            if connection.parser.isComplete {
                let keepAlive = connection.parser.head.keepAlive && !connection.unaskedBytes
                perform(connection.state.responseComplete(keepAlive: keepAlive), on: connection)
                return
            }
            if count < room && connection.tls?.hasPending != true { break }
        }
        settleGrant(connection)
    }

    func send(_ connection: ClientConnection) {
        guard let request = connection.request else { return }
        while connection.sent < request.bytes.count {
            let offset = connection.sent
            let result = request.bytes.withUnsafeBytes { bytes in
                Result { () throws(SystemError) -> Int in
                    try transmit(connection, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                }
            }
            guard case .success(let sent) = result else {
                perform(connection.state.connectionEnded(), on: connection)
                return
            }
            if sent == 0 {
                setInterest(connection, [.read, .write])
                return
            }
            connection.sent += sent
        }
        perform(connection.state.requestSent(), on: connection)
    }
}
