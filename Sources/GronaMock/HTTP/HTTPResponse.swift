/// A response a handler returns: status, header fields and the whole body.
///
/// The server adds `Date`, `Content-Length` and `Connection`; a handler sets the rest.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Close the connection once this response is sent.
    public var closesConnection: Bool

    public init(
        status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = [], closesConnection: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closesConnection = closesConnection
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
