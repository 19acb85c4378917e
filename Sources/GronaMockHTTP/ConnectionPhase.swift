/// Where a connection is in its life, as one value with explicit transitions (replacing seven booleans that
/// could contradict each other). Flow control (`readPaused`) and the client's half-close (`peerClosed`) are
/// facts about the socket, kept beside it.
///
///     open ──Connection: close / shutdown / client done──▶ lastRequestRead ──closing answer queued──┐
///       │                                                                                          ▼
///       └──request unreadable (400, 408, 413, 431…)──▶ failing ──its answer queued──▶ finalResponseQueued
///                                                                                          │ written
///                                            closed ◀──deadline or client done── lingering ◀┘ (or closed at once)
enum ConnectionPhase: Equatable {
    /// How the connection ends once its final response is written.
    enum Ending: Equatable {
        /// A normal close: linger only if the client already sent bytes of a further request.
        case afterResponse
        /// A request could not be read, so the client may still be sending: linger (RFC 9112 §9.6).
        case afterError
        /// An injected fault: close at once, no lingering.
        case abort
    }

    /// Reading requests and answering them.
    case open
    /// No further requests are read (`Connection: close`, shutdown, or the client finished sending); those
    /// read are still answered.
    case lastRequestRead
    /// A request could not be read; its error answer will end the connection.
    case failing
    /// The answer that ends the connection is queued; nothing may follow it on the wire.
    case finalResponseQueued(Ending)
    /// Our side is shut; the client's bytes are read and dropped until the deadline, so that the kernel does
    /// not answer them with a reset that destroys the response.
    case lingering(deadline: UInt64)
    case closed

    /// Only an open connection parses and dispatches what it reads; in any other phase input is dropped.
    var readsRequests: Bool { self == .open }

    var isClosed: Bool { self == .closed }

    var isLingering: Bool {
        if case .lingering = self { true } else { false }
    }

    /// The ending decided by a response that closes the connection, given the phase it was queued in.
    func ending(abort: Bool) -> Ending {
        abort ? .abort : (self == .failing ? .afterError : .afterResponse)
    }
}
