/// A response a handler returns: status, header fields and the whole body.
///
/// The server adds `Date`, `Content-Length` and `Connection`; a handler sets the rest.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Close the connection once this response is sent.
    public var closesConnection: Bool
    /// How the response reaches the client: whole, or broken on purpose (injected faults).
    public var delivery: Delivery = .whole
    /// A body made piece by piece instead of `body` (which is then ignored): sent chunked, see
    /// `HTTPBodyStream`.
    public var stream: HTTPBodyStream?

    public enum Delivery: Sendable, Equatable {
        case whole
        /// Nothing is written for this request; the connection is closed.
        case dropConnection
        /// The head (with the full Content-Length) and only the first bytes of the body, then the connection
        /// is closed: a client sees a body cut short.
        case truncated(afterBytes: Int)
    }

    public init(
        status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = [], closesConnection: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closesConnection = closesConnection
    }

    /// A response whose body `stream` makes piece by piece.
    public static func streamed(
        _ stream: HTTPBodyStream, contentType: String, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]
    ) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers)
        response.headers.set("Content-Type", contentType)
        response.stream = stream
        return response
    }

    /// A JSON response from already encoded bytes.
    public static func json(_ body: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A JSON response from already encoded text.
    public static func json(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        json(Array(text.utf8), status: status)
    }
}
