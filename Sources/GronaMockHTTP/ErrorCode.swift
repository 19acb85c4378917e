/// A stable `code` of the contract's error body (contract §1), documented in docs/errors.md.
///
/// Not a string literal on purpose: every code is declared once, as a static member, by the layer that
/// raises it (the server's own here, the engine's in `GronaMock`), so a typo cannot invent a code and a test
/// can check that every declared code is documented.
public struct ErrorCode: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Declares a code; only the static members below and the engine's own list call it.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

extension ErrorCode {
    // The server's own codes: framing, limits, routing, capacity.
    public static let badRequest = ErrorCode("bad_request")
    public static let headerFieldsTooLarge = ErrorCode("header_fields_too_large")
    public static let payloadTooLarge = ErrorCode("payload_too_large")
    public static let notImplemented = ErrorCode("not_implemented")
    public static let expectationFailed = ErrorCode("expectation_failed")
    public static let httpVersionNotSupported = ErrorCode("http_version_not_supported")
    public static let notFound = ErrorCode("not_found")
    public static let methodNotAllowed = ErrorCode("method_not_allowed")
    public static let internalError = ErrorCode("internal_error")
    public static let requestTimeout = ErrorCode("request_timeout")
    public static let tooManyConnections = ErrorCode("too_many_connections")
    /// Plain HTTP sent to a port that speaks TLS.
    public static let httpsRequired = ErrorCode("https_required")

    /// Every code the HTTP core can answer with.
    public static let serverCodes: [ErrorCode] = [
        .badRequest, .headerFieldsTooLarge, .payloadTooLarge, .notImplemented, .expectationFailed,
        .httpVersionNotSupported, .notFound, .methodNotAllowed, .internalError, .requestTimeout, .tooManyConnections,
        .httpsRequired,
    ]
}
