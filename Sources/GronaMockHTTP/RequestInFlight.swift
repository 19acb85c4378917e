/// What a connection remembers of a request between its head and its response: how to frame the answer
/// and what to report about it.
struct RequestInFlight {
    var isHead: Bool
    var keepAlive: Bool
    var http10: Bool
    var method: HTTPMethod
    var path: Substring
    /// The route pattern, for the server's observer (metrics).
    var route: String
    var started: UInt64
    /// The answer channel handed to the route's handler; nil until it is dispatched (and for a request no
    /// route takes). Kept so that a closing connection can abandon it, releasing what a hold keeps.
    var responder: HTTPResponder? = nil
}

/// A request whose head is read and whose body is being read, as the connection's state machine holds it
/// until the body is whole: then it is dispatched, and its record joins the requests in flight.
///
/// A class, so that the machine's state stays a few words: the connection asks its machine something on every
/// read and write, and a state carrying this inline was copied (memmove) each time, 3% of the server's time per
/// request on the configuration endpoint (bench/http.sh). Loop-confined and never changed once made.
final class RequestAwaitingBody {
    let head: HTTPRequestHead
    let match: Router.Match
    let sequence: UInt64
    let record: RequestInFlight

    init(head: HTTPRequestHead, match: Router.Match, sequence: UInt64, record: RequestInFlight) {
        self.head = head
        self.match = match
        self.sequence = sequence
        self.record = record
    }
}

/// Carries a loop-confined object through a `@Sendable` closure that only touches it back on its loop.
struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// How a request's responder reaches its connection from any thread: through the connection's loop, which
/// runs what it is given on the thread the connection is confined to.
struct ConnectionLink: Sendable {
    private let loop: EventLoop
    private let connection: LoopBound<Connection>
    private let sequence: UInt64

    init(_ connection: Connection, sequence: UInt64) {
        loop = connection.loop
        self.connection = LoopBound(connection)
        self.sequence = sequence
    }

    /// The answer to request `sequence`, given after its handler returned.
    func complete(with response: HTTPResponse) {
        let (connection, sequence) = (connection, sequence)
        loop.execute { connection.value.complete(sequence, response) }
    }

    /// The request's handler held it (`HTTPResponder.hold`).
    func holdDeclared() {
        let connection = connection
        loop.execute { connection.value.holdDeclared() }
    }
}

/// A connection's streamed body in progress.
struct StreamingBody {
    let stream: HTTPBodyStream
    /// The connection closes after the last piece (`Connection: close`, or HTTP/1.0's close-delimited body).
    let closesAfter: Bool
    /// Pieces go unframed: HTTP/1.0 has no chunked coding.
    let http10: Bool
    /// A piece is being made; one at a time.
    var pulling = false
}
