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
}

/// Carries a loop-confined object through a `@Sendable` closure that only touches it back on its loop.
struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
