/// A whole HTTP/1.1 request as the server hands it to its handler: head and a `Content-Length` body.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target as sent (origin form: path and optional query).
    public var target: String
    /// Header fields in the order received; names as sent.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The path without the query.
    public var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// The first field named `name` (case-insensitive, RFC 9110 §5.1).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A response. The server adds `Content-Length`, `Connection: close` and `Date`-free framing itself.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Run once the response is written and the connection closed (for `DELETE /`: exit).
    public var afterSending: (@Sendable () -> Void)?

    public init(
        status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        afterSending: (@Sendable () -> Void)? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.afterSending = afterSending
    }

    /// The bytes on the wire: status line, headers, `Content-Length`, `Connection: close`, body. A 204 has
    /// neither body nor `Content-Length` (RFC 9110 §8.6).
    public var serialized: [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if status == 204 {
            head += "Connection: close\r\n\r\n"
            return Array(head.utf8)
        }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
