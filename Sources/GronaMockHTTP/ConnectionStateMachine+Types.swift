/// The vocabulary of `ConnectionStateMachine`: its states, the summary of a connection's backlog it decides
/// on, and the actions it returns.
extension ConnectionStateMachine {
    enum State {
        /// Reading requests and answering them in order. `idleDeadline`: when a connection owed nothing closes.
        case open(Reading, idleDeadline: UInt64)
        /// No further request is read; those read are still answered, and the connection ends after them.
        case draining(Drain, Input)
        /// Our side is shut; the client's bytes are read and dropped until the deadline, so that the kernel does
        /// not answer them with a reset that destroys the answer (RFC 9112 §9.6).
        case lingering(deadline: UInt64)
        case closed
    }

    /// How far the next request is read while the connection is open.
    enum Reading {
        /// No byte of the next request yet.
        case betweenRequests
        /// A request's first byte arrived: its head must be whole by `deadline`, however slowly bytes trickle.
        case head(deadline: UInt64)
        /// The head is read; its body is being read.
        case body(BodyRead)
        /// The pipeline or the outbound queue is full: the socket is not read for now. `headDeadline`: the
        /// header timeout of a request begun before the pause, which goes on running.
        case paused(headDeadline: UInt64?)
    }

    /// A request whose head is read and whose body is being read: no handler has seen it yet.
    struct BodyRead {
        var request: Request
        var keepAlive: Bool
        var deadline: UInt64
        /// The client waits for `100 Continue` before it sends the body (RFC 9110 §10.1.1), not sent yet.
        var continueOwed: Bool
    }

    /// Why no further request is read.
    enum Drain: Equatable, Sendable {
        /// The last request is read (`Connection: close`, shutdown, the client finished sending).
        case lastRequestRead
        /// A request could not be read; its error answer will end the connection.
        case failing
        /// The answer that ends the connection is queued; nothing may follow it on the wire.
        case finalAnswerQueued(Ending)
    }

    /// What becomes of the client's bytes while draining.
    enum Input: Equatable, Sendable {
        /// Read and dropped, a bounded number of reads per wake-up.
        case discarding
        /// Not read: the backlog is full (flow control, kept from when the connection was open).
        case paused
        /// The client finished sending (end of stream, a half-close).
        case ended
    }

    /// How the connection ends once its final answer is written.
    enum Ending: Equatable, Sendable {
        /// A normal close: linger only if the client already sent bytes of a further request.
        case afterResponse
        /// A request could not be read, so the client may still be sending: linger (RFC 9112 §9.6).
        case afterError
        /// An injected fault or a failed stream: close at once, cut, no lingering.
        case abort
    }

    /// What an answer does to the connection once it is queued.
    enum AfterAnswer: Equatable, Sendable {
        case keepOpen
        /// The answer ends the connection (`Connection: close`, HTTP/1.0, shutdown).
        case close
        /// The answer is dropped or truncated on purpose, or its stream failed: the connection ends inside it.
        case abort
    }

    enum Action {
        case none
        /// Parse the bytes read.
        case parse
        /// Drop the bytes read.
        case discard
        /// Stop parsing and reading: the pipeline or the outbound queue is full.
        case pauseReading
        /// Read and parse again, including what is already buffered.
        case resumeReading
        /// The request is read whole: hand it to its handler.
        case dispatch(Request, body: [UInt8])
        /// Answer with the error, after the answers owed before it; `Request`: the one whose body was being
        /// read, which the error answers; nil for an error that belongs to no request read yet.
        case answerError(HTTPError, Request?)
        /// Write the interim `100 Continue`.
        case sendContinue
        /// Queue the answer whose turn it is.
        case writeAnswer
        /// Drop the answer whose turn it is: the final answer is already queued.
        case dropAnswer
        /// Shut our side and read what the client still sends, until the linger deadline.
        case linger
        /// Ask the poller for what the new state needs.
        case updateInterest
        /// Close the connection; whatever is still unanswered is abandoned.
        case close(CloseReason)
    }

    enum CloseReason: Equatable, Sendable {
        /// The connection was to end and all it owed is written, or nothing remains that could be.
        case finished
        /// The client finished sending with nothing owed to it, or with only an endless stream it no longer reads.
        case clientFinished
        /// The client finished sending while a request of its connection was held: it is taken as gone (499).
        case holdAbandoned
        /// A read failed or the poller saw the connection hang up.
        case connectionLost
        case writeFailed
        case idleTimeout
        case writeTimeout
        case lingerEnded
        /// Shutdown found the connection owing nothing.
        case shutdown
        /// The answer is cut on purpose (a drop or truncate fault) or by a stream that failed.
        case aborted
        /// An input that cannot happen in the state it came in (a second head while a body is read): carrying on
        /// could lose a request, so the connection ends.
        case inconsistentInput
        /// The event loop closed it (shutdown's deadline, a poller that refused the connection).
        case loopClosed

        /// Whether the connection ends inside an answer, which the transport must show (no TLS close_notify).
        var cutsAnswer: Bool { self == .aborted }
    }

    /// What the connection still owes its client, computed from its buffers for each input that decides on it.
    struct Backlog: Equatable, Sendable {
        /// Requests read whole and not yet queued to be written (with their handlers, or answered out of turn).
        var unanswered = 0
        /// A streamed body being sent; the answers behind it wait for its end.
        var stream: Stream? = nil
        /// Bytes queued and not yet written.
        var write: PendingWrite? = nil

        struct Stream: Equatable, Sendable {
            /// It ends when its client finishes sending (`HTTPBodyStream.stopsWhenClientCloses`).
            var stopsWhenClientCloses = false
        }

        struct PendingWrite: Equatable, Sendable {
            var bytes: Int
            /// When the socket last took bytes, or when the queue was last found empty and filled.
            var lastProgress: UInt64
        }

        /// Nothing is left to answer: no request waits for its answer, no body streams, no byte waits.
        var isEmpty: Bool { unanswered == 0 && stream == nil && write == nil }
    }

    /// Timeouts and limits of the lifecycle, in monotonic nanoseconds and bytes.
    struct Limits: Sendable {
        var headerTimeout: Duration
        var bodyTimeout: Duration
        var idleTimeout: Duration
        var writeTimeout: Duration
        var lingerTimeout: Duration = .seconds(2)
        var maxPipelinedRequests: Int
        /// Queued answer bytes above which reading pauses.
        var readHighWater = 4 * 1024 * 1024
    }
}

extension ConnectionStateMachine.Reading {
    var isPaused: Bool {
        if case .paused = self { true } else { false }
    }

    /// What the client's bytes become if the connection stops reading requests now.
    var drainInput: ConnectionStateMachine.Input { isPaused ? .paused : .discarding }

    /// The deadline of the request being read, if one is begun.
    var requestDeadline: UInt64? {
        switch self {
        case .betweenRequests: nil
        case .head(let deadline): deadline
        case .body(let body): body.deadline
        case .paused(let headDeadline): headDeadline
        }
    }
}

extension ConnectionStateMachine.State: Sendable where Request: Sendable {}
extension ConnectionStateMachine.Reading: Sendable where Request: Sendable {}
extension ConnectionStateMachine.BodyRead: Sendable where Request: Sendable {}
extension ConnectionStateMachine.Action: Sendable where Request: Sendable {}

extension ConnectionStateMachine.State: Equatable where Request: Equatable {}
extension ConnectionStateMachine.Reading: Equatable where Request: Equatable {}
extension ConnectionStateMachine.BodyRead: Equatable where Request: Equatable {}
extension ConnectionStateMachine.Action: Equatable where Request: Equatable {}
