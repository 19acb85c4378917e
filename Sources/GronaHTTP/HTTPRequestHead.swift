import GronaJSON

/// The request line and header section of one request, validated by the parser.
public struct HTTPRequestHead: Sendable {
    public var method: HTTPMethod
    /// The request target as sent (origin form `/path?query`, absolute form, or `*`).
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// Whether the connection may carry another request after this one (RFC 9112 §9.3).
    public var keepAlive: Bool
    /// Whether the client waits for `100 Continue` before it sends the body (RFC 9110 §10.1.1).
    public var expectsContinue: Bool
    public var framing: BodyFraming

    public init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = [:],
        keepAlive: Bool = true, expectsContinue: Bool = false, framing: BodyFraming = .none
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
        self.framing = framing
    }

    /// How the body's end is found (RFC 9112 §6.3).
    public enum BodyFraming: Sendable, Equatable {
        case none
        case contentLength(Int)
        case chunked
    }

    /// The path part of the target, without the query; `/` for the asterisk form and for an absolute form
    /// with an empty path. In the absolute form the authority ends at the first `/` or `?` (RFC 3986 §3.2),
    /// so a `/` inside the query (`http://h?next=/admin`) is not taken for the path.
    public var path: Substring {
        var rest = Substring(target)
        if let scheme = ["http://", "https://"].first(where: { rest.hasPrefix($0) }) {
            rest = rest.dropFirst(scheme.count)
            guard let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" }), rest[end] == "/" else { return "/" }
            rest = rest[end...]
        }
        if rest == "*" { return "/" }
        if let query = rest.firstIndex(of: "?") { return rest[..<query] }
        return rest
    }

    /// The query part of the target after `?`, or an empty string.
    public var query: Substring {
        guard let mark = target.firstIndex(of: "?") else { return "" }
        return target[target.index(after: mark)...]
    }
}
