/// Why a request could not be read. Each case fixes the status the server answers with before it closes the
/// connection, since after a framing error the next request's start cannot be found (RFC 9112 §11.2).
public enum HTTPParseError: Error, Equatable, Sendable {
    /// Malformed syntax or framing: 400.
    case badRequest(String)
    /// The request line and header section, or the trailer section, exceed the limits: 431.
    case headerFieldsTooLarge(String)
    /// The body exceeds the route's limit: 413.
    case contentTooLarge(limit: Int)
    /// A transfer coding other than chunked: 501 (RFC 9112 §6.1).
    case notImplemented(String)
    /// An `Expect` other than `100-continue`: 417 (RFC 9110 §10.1.1).
    case expectationFailed(String)
    /// A well-formed version other than 1.0 and 1.1: 505.
    case versionNotSupported(String)

    public var status: HTTPStatus {
        switch self {
        case .badRequest: .badRequest
        case .headerFieldsTooLarge: .requestHeaderFieldsTooLarge
        case .contentTooLarge: .contentTooLarge
        case .notImplemented: .notImplemented
        case .expectationFailed: .expectationFailed
        case .versionNotSupported: .httpVersionNotSupported
        }
    }

    /// The stable error code of the JSON error body.
    public var code: ErrorCode {
        switch self {
        case .badRequest: .badRequest
        case .headerFieldsTooLarge: .headerFieldsTooLarge
        case .contentTooLarge: .payloadTooLarge
        case .notImplemented: .notImplemented
        case .expectationFailed: .expectationFailed
        case .versionNotSupported: .httpVersionNotSupported
        }
    }

    /// A sentence for a person; never echoes request bytes beyond a short token.
    public var message: String {
        switch self {
        case .badRequest(let reason): "Malformed request: \(reason)."
        case .headerFieldsTooLarge(let reason): "Request header fields too large: \(reason)."
        case .contentTooLarge(let limit): "The request body exceeds this endpoint's limit of \(limit) bytes."
        case .notImplemented(let reason): "Not implemented: \(reason)."
        case .expectationFailed(let expectation): "Unsupported expectation \"\(expectation)\"; only 100-continue."
        case .versionNotSupported(let version): "HTTP version \(version) is not supported; use HTTP/1.1."
        }
    }
}
