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
struct RequestAwaitingBody {
    var head: HTTPRequestHead
    var match: Router.Match
    var sequence: UInt64
    var record: RequestInFlight
}

/// Carries a loop-confined object through a `@Sendable` closure that only touches it back on its loop.
struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
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
