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
        // Read as UTF-8 bytes: every delimiter here is ASCII, and walking Characters cost a tenth of a request.
        let bytes = target.utf8
        var start = bytes.startIndex
        for scheme in Self.absoluteSchemes where bytes.starts(with: scheme) {
            let authority = bytes.index(start, offsetBy: scheme.count)
            guard let end = bytes[authority...].firstIndex(where: { $0 == Self.slash || $0 == Self.questionMark }),
                bytes[end] == Self.slash
            else { return "/" }
            start = end
            break
        }
        let rest = bytes[start...]
        if rest.count == 1 && rest.first == Self.asterisk { return "/" }
        return target[start..<(rest.firstIndex(of: Self.questionMark) ?? bytes.endIndex)]
    }

    private static let absoluteSchemes = [Array("http://".utf8), Array("https://".utf8)]
    private static let slash = UInt8(ascii: "/")
    private static let questionMark = UInt8(ascii: "?")
    private static let asterisk = UInt8(ascii: "*")

    /// The query part of the target after `?`, or an empty string.
    public var query: Substring {
        guard let mark = target.utf8.firstIndex(of: Self.questionMark) else { return "" }
        return target[target.utf8.index(after: mark)...]
    }
}
