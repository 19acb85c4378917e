import GronaMockPlatform
import GronaMockTLSCore

/// HTTPS in `HTTPClient`: the handshake as a state of the connection's lifecycle (`handshaking`, between the
/// connect and the first request), OpenSSL's WANT_READ / WANT_WRITE as the poller interest the connection waits
/// for, and every read and write of an `https://` target's connection through its TLS session. No thread ever
/// waits: a server that says nothing is failed at the request's deadline, one that sends garbage or closes at
/// once, each counted in the report by why.
extension HTTPClient {
    /// Starts the connection's TLS session (SNI and the expected name from the URL's host), or goes on with its
    /// handshake as far as the socket allows.
    func handshake(_ connection: ClientConnection) {
        guard let context = configuration.tls else {
            perform(connection.state.handshakeFinished(), on: connection)
            return
        }
        if connection.tls == nil {
            do {
                connection.tls = try context.session(fd: connection.fd, host: configuration.host)
            } catch {
                lastTLSFailure = error.description
                perform(connection.state.handshakeFailed(.tlsHandshake), on: connection)
                return
            }
        }
        guard let tls = connection.tls else { return }
        switch tls.handshake() {
        case .done:
            perform(connection.state.handshakeFinished(), on: connection)
        case .wantRead:
            setInterest(connection, .read)
        case .wantWrite:
            setInterest(connection, [.read, .write])
        case .failed(let failure):
            lastTLSFailure = failure.reason
            perform(connection.state.handshakeFailed(.init(failure)), on: connection)
        }
    }

    /// One read of the answer: from the TLS session, or the socket with the kernel's receive stamp (a TLS
    /// session's reads carry none). Nil when nothing can be read now; 0 at the end of the stream.
    func receive(_ connection: ClientConnection, into buffer: UnsafeMutableRawBufferPointer, arrival: inout Int64)
        throws(SystemError) -> Int?
    {
        guard let tls = connection.tls else {
            return try Socket.receive(connection.fd, into: buffer, arrival: &arrival)
        }
        switch tls.read(into: buffer) {
        case .done(let count):
            return count
        case .wantRead:
            return nil
        case .wantWrite:
            // A key update's answer must go out first (RFC 8446 §4.6.3).
            setInterest(connection, connection.interest.union(.write))
            return nil
        case .closed:
            return 0
        case .failed(let reason):
            throw SystemError(call: "TLS read", reason: reason)
        }
    }

    /// One write of the request: through the TLS session, or to the socket. 0 when the socket is full. A
    /// blocked TLS write is offered again with the same bytes (SSL_write(3)), which `send` does: it resumes
    /// from the first byte not yet taken.
    func transmit(_ connection: ClientConnection, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        guard let tls = connection.tls else { return try Socket.send(connection.fd, bytes) }
        switch tls.write(bytes) {
        case .done(let count): return count
        case .wantRead, .wantWrite: return 0
        case .closed: throw SystemError(call: "TLS write", reason: "the server closed the connection")
        case .failed(let reason): throw SystemError(call: "TLS write", reason: reason)
        }
    }

    /// Keeps `connection` for the next turn when its TLS session holds decrypted bytes: the socket may be empty,
    /// so the poller would never wake for them.
    func noteBufferedTLS(_ connection: ClientConnection) {
        guard connection.fd >= 0, !connection.awaitsBufferedRead, connection.tls?.hasPending == true else { return }
        connection.awaitsBufferedRead = true
        tlsBuffered.append(connection.slot)
    }

    /// Reads what the TLS sessions kept, once per turn. A connection that waits for answer memory stays out
    /// until it is admitted (`resumeReading` notes it again).
    func readBufferedTLS() {
        guard !tlsBuffered.isEmpty else { return }
        let slots = tlsBuffered
        tlsBuffered.removeAll(keepingCapacity: true)
        for slot in slots {
            let connection = connections[slot]
            connection.awaitsBufferedRead = false
            guard connection.fd >= 0, !connection.grant.isWaiting else { continue }
            readable(connection)
        }
    }
}

extension HTTPClient {
    /// Why `completion` got no answer, in a sentence: for a failed handshake, what OpenSSL found, its stable
    /// code, and what to do about it.
    package func failureDescription(of completion: ClientCompletion) -> String {
        guard case .failure(let failure) = completion.outcome, failure.isTLS, let reason = lastTLSFailure else {
            return completion.failureDescription
        }
        let advice: String
        switch failure {
        case .tlsUnknownCA: advice = "; give the CA that issued it with --cacert FILE (grona-mock's: tls/ca.pem)"
        case .tlsNameMismatch: advice = "; the URL's host must be a name the certificate carries"
        default: advice = ""
        }
        return "the TLS handshake failed: \(reason) [\(failure.rawValue)]\(advice)"
    }
}

extension EndpointStatistics.TransportFailure {
    /// The report's kind of a failed handshake.
    init(_ failure: TLSHandshakeFailure) {
        switch failure {
        case .unknownAuthority: self = .tlsUnknownCA
        case .nameMismatch: self = .tlsNameMismatch
        case .certificate: self = .tlsCertificate
        case .protocolError: self = .tlsHandshake
        }
    }

    /// A failure of the TLS handshake, of any kind.
    package var isTLS: Bool {
        switch self {
        case .tlsUnknownCA, .tlsNameMismatch, .tlsCertificate, .tlsHandshake: true
        case .connect, .closed, .timeout, .malformed, .answerTooLarge: false
        }
    }
}
