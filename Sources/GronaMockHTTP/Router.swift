import GronaMockPlatform

/// Answers a request now or later. Call `send` exactly once, from any thread; later calls are ignored.
public typealias HTTPHandler = @Sendable (HTTPRequest, HTTPResponder) -> Void

/// Runs in front of a route's handler: it may answer itself (and not call `next`), or pass the request on.
public typealias HTTPMiddleware = @Sendable (HTTPRequest, HTTPResponder, _ next: @escaping HTTPHandler) -> Void

/// The routes a middleware covers, decided from each route's method and pattern.
public struct RouteGroup: Sendable {
    public let contains: @Sendable (HTTPMethod, String) -> Bool

    public init(_ contains: @escaping @Sendable (_ method: HTTPMethod, _ pattern: String) -> Bool) {
        self.contains = contains
    }

    /// Every route whose pattern starts with `prefix`, but the patterns in `except`.
    public static func prefix(_ prefix: String, except: Set<String> = []) -> RouteGroup {
        RouteGroup { _, pattern in pattern.hasPrefix(prefix) && !except.contains(pattern) }
    }
}

/// Maps method and path to a handler, with `{name}` path parameters.
///
/// Routes are few (tens), so matching walks them in order; a path that matches some route but not its
/// method gets 405 with `Allow`, and `HEAD` is served by the `GET` route with the body left off.
public struct Router: Sendable {
    /// The body limit of routes that do not set one, and of requests that match no route.
    public static let defaultBodyLimit = 64 * 1024

    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: String
        let segments: [Segment]
        let bodyLimit: Int
        /// The handler as registered.
        let handler: HTTPHandler
        /// The handler inside every middleware whose group holds the route: what requests reach.
        var served: HTTPHandler
    }

    enum Segment: Sendable, Equatable {
        /// The segment's UTF-8, compared octet by octet.
        case literal([UInt8])
        case parameter(String)
    }

    /// What a request's method and path resolve to.
    public enum Match: Sendable {
        case route(handler: HTTPHandler, parameters: [String: String], bodyLimit: Int, pattern: String)
        case failure(HTTPError)

        /// The route's pattern, for metrics: `unmatched` for a request no route takes.
        var pattern: String {
            switch self {
            case .route(_, _, _, let pattern): pattern
            case .failure: "unmatched"
            }
        }

        var bodyLimit: Int {
            switch self {
            case .route(_, _, let limit, _): limit
            case .failure: Router.defaultBodyLimit
            }
        }
    }

    private var routes: [Route] = []
    private var middleware: [(group: RouteGroup, middleware: HTTPMiddleware)] = []
    private var headChecks: [(group: RouteGroup, check: HeadCheck)] = []
    private var refusalHeaders: [(path: String, headers: [String: String])] = []

    /// Looks at a request's head, before its body is read: an error refuses the request there, so that a
    /// client that may not use a route cannot make the server read (and buffer) its body first.
    public typealias HeadCheck = @Sendable (HTTPRequestHead) -> HTTPError?
    /// Where a handler's unexpected error is reported; the client only sees a generic 500.
    public var logger: Logger

    public init(logger: Logger = .silent) {
        self.logger = logger
    }

    /// Every route, in the order registered: for tests that walk the table and for documentation checks.
    public var table: [(method: HTTPMethod, pattern: String)] { routes.map { ($0.method, $0.pattern) } }

    /// Puts `middleware` in front of every route of `group`, those registered before and after alike, so
    /// protection never depends on where a route was added. Middleware added earlier runs first.
    public mutating func use(_ group: RouteGroup, _ middleware: @escaping HTTPMiddleware) {
        self.middleware.append((group, middleware))
        for index in routes.indices { routes[index].served = served(routes[index]) }
    }

    /// Adds `headers` to the router's own refusals of requests to `path` or below it: a path no route takes (404)
    /// and a method its routes do not serve (405). Those answers come from no route, so no route group covers
    /// them; a 404 echoes the path asked for, and under the dashboard it must be as inert in a browser as the
    /// pages are (`DashboardRoutes.securityHeaders`).
    public mutating func addHeaders(_ headers: [String: String], toRefusalsAt path: String) {
        refusalHeaders.append((path, headers))
    }

    /// Checks the head of every request to a route of `group`, registered before or after.
    public mutating func check(_ group: RouteGroup, _ check: @escaping HeadCheck) {
        headChecks.append((group, check))
    }

    /// The first head check that refuses `head`, for the route `pattern` it matched.
    func refusal(for head: HTTPRequestHead, pattern: String) -> HTTPError? {
        for entry in headChecks where entry.group.contains(head.method, pattern) {
            if let error = entry.check(head) { return error }
        }
        return nil
    }

    /// Adds a handler that may answer later, from any thread.
    public mutating func on(
        _ method: HTTPMethod, _ pattern: String, bodyLimit: Int = Router.defaultBodyLimit,
        handler: @escaping HTTPHandler
    ) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            segment -> Segment in
            segment.hasPrefix("{") && segment.hasSuffix("}")
                ? .parameter(String(segment.dropFirst().dropLast())) : .literal(Array(segment.utf8))
        }
        var route = Route(
            method: method, pattern: pattern, segments: segments, bodyLimit: bodyLimit, handler: handler,
            served: handler)
        route.served = served(route)
        routes.append(route)
    }

    /// The route's handler wrapped in its groups' middleware, the first added outermost; the request is
    /// stamped with the route's pattern before the first of them sees it.
    private func served(_ route: Route) -> HTTPHandler {
        let chain = middleware.reversed().reduce(route.handler) { next, entry in
            guard entry.group.contains(route.method, route.pattern) else { return next }
            let middleware = entry.middleware
            return { request, responder in middleware(request, responder, next) }
        }
        let pattern = route.pattern
        return { request, responder in
            var request = request
            request.route = pattern
            chain(request, responder)
        }
    }

    /// Adds a handler that answers at once; a thrown `HTTPError` (or any `HTTPErrorConvertible`) becomes its
    /// error body, anything else a 500.
    public mutating func on(
        _ method: HTTPMethod, _ pattern: String, bodyLimit: Int = Router.defaultBodyLimit,
        _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
    ) {
        let logger = self.logger
        on(method, pattern, bodyLimit: bodyLimit) { request, responder in
            responder.send(Router.respond(to: request, with: handler, logger: logger))
        }
    }

    /// Runs a synchronous handler and turns whatever it throws into a response.
    public static func respond(
        to request: HTTPRequest, with handler: (HTTPRequest) throws -> HTTPResponse, logger: Logger = .silent
    ) -> HTTPResponse {
        do {
            return try handler(request)
        } catch let error as any HTTPErrorConvertible {
            return error.httpError.response
        } catch {
            logger.error(
                "handler failed",
                [("method", request.method.description), ("path", request.path), ("error", "\(error)")])
            return HTTPError.unexpected.response
        }
    }

    public func match(_ method: HTTPMethod, path: Substring) -> Match {
        // On the path's bytes: a `Substring` index moved one byte at a time was half of routing's time.
        if let match = path.utf8.withContiguousStorageIfAvailable({ match(method, path: path, bytes: $0) }) {
            return match
        }
        var owned = String(path)
        return owned.withUTF8 { match(method, path: path, bytes: $0) }
    }

    /// `match` over `bytes`, the UTF-8 of `path`.
    private func match(_ method: HTTPMethod, path: Substring, bytes: UnsafeBufferPointer<UInt8>) -> Match {
        var allowed: [HTTPMethod] = []
        let count = PathParts.count(in: bytes)
        // By index, and by segment count first: a copy of each route was four references retained and
        // released, times every route, on every request.
        for index in routes.indices where routes[index].segments.count == count {
            guard Self.fits(routes[index].segments, bytes),
                let parameters = Self.parameters(routes[index].segments, bytes)
            else { continue }
            let route = routes[index]
            if route.method == method || (method == .head && route.method == .get) {
                return .route(
                    handler: route.served, parameters: parameters, bodyLimit: route.bodyLimit, pattern: route.pattern)
            }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        guard !allowed.isEmpty else { return .failure(refusal(.notFound(String(path)), at: path)) }
        if let get = allowed.firstIndex(of: .get), !allowed.contains(.head) { allowed.insert(.head, at: get + 1) }
        return .failure(refusal(.methodNotAllowed(method, allowed: allowed), at: path))
    }

    /// `error` with the headers added for refusals at `path` (`addHeaders(_:toRefusalsAt:)`).
    private func refusal(_ error: HTTPError, at path: Substring) -> HTTPError {
        var error = error
        for entry in refusalHeaders where Self.path(path, isAtOrBelow: entry.path) {
            error.headers.merge(entry.headers) { current, _ in current }
        }
        return error
    }

    /// Whether `path` is `base` or a path below it: `/_mock/ui/x` is below `/_mock/ui`, `/_mock/uix` is not.
    private static func path(_ path: Substring, isAtOrBelow base: String) -> Bool {
        guard path.utf8.starts(with: base.utf8) else { return false }
        let rest = path.utf8.dropFirst(base.utf8.count)
        return rest.isEmpty || rest.first == UInt8(ascii: "/")
    }

    /// The path's segments after its first `/`, split on the byte `/` (a Character split walks graphemes), one
    /// at a time, as ranges of the path's bytes: matching walks every route, and an array of them per request
    /// was a tenth of routing's time.
    private struct PathParts {
        private let bytes: UnsafeBufferPointer<UInt8>
        private var start: Int?

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            start = bytes.firstIndex(of: UInt8(ascii: "/")).map { $0 + 1 }
        }

        /// How many parts `next` returns: one more than the slashes after the first, none without a slash.
        static func count(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
            var slashes = 0
            for byte in bytes where byte == UInt8(ascii: "/") { slashes += 1 }
            return slashes
        }

        mutating func next() -> UnsafeBufferPointer<UInt8>? {
            guard let from = start else { return nil }
            var end = from
            while end < bytes.count && bytes[end] != UInt8(ascii: "/") { end += 1 }
            start = end < bytes.count ? end + 1 : nil
            return UnsafeBufferPointer(rebasing: bytes[from..<end])
        }
    }

    /// Whether the path has the route's segments: as many, each literal equal octet by octet (RFC 3986 §6.2.1
    /// compares paths so), each parameter not empty. Nothing is decoded, so the many routes a path does not
    /// fit fail before any parameter is.
    private static func fits(_ segments: [Segment], _ path: UnsafeBufferPointer<UInt8>) -> Bool {
        var parts = PathParts(path)
        for segment in segments {
            guard let part = parts.next() else { return false }
            switch segment {
            case .literal(let literal):
                guard part.count == literal.count, part.elementsEqual(literal) else { return false }
            case .parameter:
                guard !part.isEmpty else { return false }
            }
        }
        return parts.next() == nil
    }

    /// The route's parameters, percent-decoded, for a path that `fits` it; nil when one does not decode.
    private static func parameters(_ segments: [Segment], _ path: UnsafeBufferPointer<UInt8>) -> [String: String]? {
        var parameters: [String: String] = [:]
        var parts = PathParts(path)
        for segment in segments {
            guard let part = parts.next() else { return nil }
            guard case .parameter(let name) = segment else { continue }
            // Whole segments of a `String`'s UTF-8, split at an ASCII byte: valid UTF-8, decoded as it was.
            guard let value = PercentDecoding.decode(String(decoding: part, as: UTF8.self)) else { return nil }
            parameters[name] = value
        }
        return parameters
    }
}
