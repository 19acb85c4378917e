/// How a client goes in the middle of a request, in the ways a broken one does: the endings the tests of held
/// requests put a server through.
package enum ClientEnding: CaseIterable, CustomStringConvertible, Sendable {
    /// A FIN.
    case close
    /// `shutdown(SHUT_WR)`: a FIN too; the client could read, but a held request's client is taken as gone.
    case halfClose
    /// SO_LINGER 0: a reset, as a killed process.
    case reset
    /// A FIN, then a reset.
    case finThenReset

    package func apply(to client: RawClient) {
        switch self {
        case .close: client.closeNow()
        case .halfClose: client.finishSending()
        case .reset: client.reset()
        case .finThenReset:
            client.finishSending()
            client.reset()
        }
    }

    package var description: String {
        switch self {
        case .close: "close"
        case .halfClose: "half-close"
        case .reset: "reset"
        case .finThenReset: "FIN then reset"
        }
    }
}
