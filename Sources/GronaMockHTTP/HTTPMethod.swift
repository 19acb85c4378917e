/// A request method (RFC 9110 §9). Known methods are cases so routing compares integers, not strings;
/// any other token is kept as `.other` so the router can answer it with 405 rather than a parse error.
public enum HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    case get, head, post, put, delete, patch, options
    case other(String)

    public init(_ token: String) {
        switch token {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        case "PUT": self = .put
        case "DELETE": self = .delete
        case "PATCH": self = .patch
        case "OPTIONS": self = .options
        default: self = .other(token)
        }
    }

    public var description: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .patch: "PATCH"
        case .options: "OPTIONS"
        case .other(let token): token
        }
    }
}

/// The HTTP versions this server speaks (RFC 9112 §2.3); anything else is answered with 505.
public enum HTTPVersion: Sendable, Equatable {
    case http10
    case http11
}
