/// An error that knows its HTTP answer, as Hummingbird's `HTTPResponseError`: domain code throws errors in its
/// own terms, and the layer that speaks HTTP conforms them, in one place, to say which status, code and
/// sentence each becomes. A handler may then simply `try`; the router answers with `httpError`.
public protocol HTTPErrorConvertible: Error {
    var httpError: HTTPError { get }
}

extension HTTPError: HTTPErrorConvertible {
    public var httpError: HTTPError { self }
}
