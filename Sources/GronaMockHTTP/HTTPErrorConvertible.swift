/// An error that knows its HTTP answer, as Hummingbird's `HTTPResponseError`: domain code throws errors in its
/// own terms, and the layer that speaks HTTP conforms them, in one place, to say which status, code and
/// sentence each becomes. A handler may then simply `try`; the router answers with `httpError`.
public protocol HTTPErrorConvertible: Error {
    var httpError: HTTPError { get }
}

extension HTTPError: HTTPErrorConvertible {
    public var httpError: HTTPError { self }
}

extension HTTPResponder {
    /// Runs `body`, which answers later through this responder, and answers with what it throws if it throws
    /// first, as the router does for a handler that answers at once: its `httpError`, or a generic 500.
    public func sendingErrors(_ body: () throws -> Void) {
        do {
            try body()
        } catch let error as any HTTPErrorConvertible {
            send(error.httpError.response)
        } catch {
            send(HTTPError.unexpected.response)
        }
    }
}
