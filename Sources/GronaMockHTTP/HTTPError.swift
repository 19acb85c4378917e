import GronaMockJSON

/// An error a handler throws to answer with the contract's error body (contract §1):
/// `{"error": {"code": "snake_case_code", "message": "a sentence for a person"}}`.
///
/// `code` values are stable and documented in docs/errors.md; messages may change. Neither ever holds a
/// secret: callers pass a description of what was wrong, not the offending value.
public struct HTTPError: Error, Sendable, Equatable {
    public var status: HTTPStatus
    public var code: ErrorCode
    public var message: String
    /// Extra fields such as `Allow`, `WWW-Authenticate` or `Retry-After`.
    public var headers: [String: String]

    public init(_ status: HTTPStatus, code: ErrorCode, message: String, headers: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var response: HTTPResponse {
        var response = HTTPResponse.json(
            "{\"error\":{\"code\":\(JSONText.quoted(code.rawValue)),\"message\":\(JSONText.quoted(message))}}",
            status: status)
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { response.headers.set(name, value) }
        return response
    }

    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.message == rhs.message && lhs.headers == rhs.headers
    }

    // MARK: - Errors the server itself raises

    public static func notFound(_ path: String) -> HTTPError {
        HTTPError(.notFound, code: .notFound, message: "No route for \(path.prefix(200)).")
    }

    public static func methodNotAllowed(_ method: HTTPMethod, allowed: [HTTPMethod]) -> HTTPError {
        let allow = allowed.map(\.description).joined(separator: ", ")
        return HTTPError(
            .methodNotAllowed, code: .methodNotAllowed,
            message: "\(String(method.description.prefix(20))) is not allowed here; use \(allow).",
            headers: ["Allow": allow])
    }

    public static let unexpected = HTTPError(
        .internalServerError, code: .internalError, message: "The server failed to handle the request; see its log.")

    public static let requestTimeout = HTTPError(
        .requestTimeout, code: .requestTimeout, message: "The request was not received in time.")

    public static let tooManyConnections = HTTPError(
        .serviceUnavailable, code: .tooManyConnections,
        message: "The server is at its connection limit; retry shortly.", headers: ["Retry-After": "1"])

    /// Plain HTTP reached a TLS port: the answer goes out in the clear, naming the URL to use.
    package static func httpsRequired(authority: String?) -> HTTPError {
        let url = "https://\(authority ?? "<this host:port>")/"
        return HTTPError(
            .badRequest, code: .httpsRequired,
            message: "This port speaks HTTPS (TLS), and the request came as plain HTTP; use \(url) instead.")
    }

    init(_ error: HTTPParseError) {
        self.init(error.status, code: error.code, message: error.message)
    }
}
