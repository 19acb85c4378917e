import Testing

@testable import GronaMockLoad

/// The TLS handshake as a state of the client connection's lifecycle: an `https://` connection handshakes
/// between its connect and its request, and however the handshake ends the request ends with it, by why.
@Suite struct TLSConnectionStateTests {
    @Test func aSecureConnectionHandshakesBeforeItSends() {
        var state = ClientConnectionState()
        #expect(state.connected(secure: true) == .handshake)
        #expect(state.state == .handshaking)
        #expect(state.carriesRequest)
        // Nothing is sent, and no answer taken, before the handshake is done.
        #expect(state.requestSent() == .none)
        #expect(state.responseComplete(keepAlive: true) == .none)
        #expect(state.handshakeFinished() == .send)
        #expect(state.state == .sending)
        #expect(state.requestSent() == .awaitResponse)
        #expect(state.responseComplete(keepAlive: true) == .deliver(keepAlive: true))
        // A kept connection's next request needs no second handshake.
        #expect(state.startRequest() == .send)
    }

    @Test func aPlainConnectionSendsAtOnce() {
        var state = ClientConnectionState()
        #expect(state.connected() == .send)
        #expect(state.handshakeFinished() == .none)
        #expect(state.state == .sending)
    }

    @Test(arguments: [
        EndpointStatistics.TransportFailure.tlsUnknownCA, .tlsNameMismatch, .tlsCertificate, .tlsHandshake,
    ])
    func aFailedHandshakeFailsTheRequestWithItsKind(_ failure: EndpointStatistics.TransportFailure) {
        var state = ClientConnectionState()
        _ = state.connected(secure: true)
        #expect(state.handshakeFailed(failure) == .fail(failure))
        #expect(state.state == .closed)
        #expect(state.handshakeFinished() == .none)
    }

    @Test func aCloseOrADeadlineDuringTheHandshakeIsAHandshakeFailure() {
        var closed = ClientConnectionState()
        _ = closed.connected(secure: true)
        #expect(closed.connectionEnded() == .fail(.tlsHandshake))
        var late = ClientConnectionState()
        _ = late.connected(secure: true)
        #expect(late.timedOut() == .fail(.tlsHandshake))
        #expect(late.state == .closed)
    }
}
