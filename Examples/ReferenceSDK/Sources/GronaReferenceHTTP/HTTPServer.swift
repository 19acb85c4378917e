import Foundation

/// A small HTTP/1.1 server on POSIX sockets, for the conformance test service: Foundation has no HTTP server on
/// Linux. One thread accepts; each connection gets its own thread, reads one request (`Content-Length` bodies
/// only, bounded head and body), answers it and closes. The handler runs on that thread and may block.
///
/// Limits: a request head over 16 KiB is answered 431, a body over 1 MiB 413 (as soon as its length is read),
/// anything unparseable 400, a `Transfer-Encoding` 501; a client silent for `timeoutSeconds` is dropped; past
/// `maxConnections` at once a new connection is answered 503. None of these stops the server.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public let limits: HTTPRequestParser.Limits
    public let timeoutSeconds: Int
    public let maxConnections: Int
    private let handler: Handler
    private let listener: Socket
    private let lock = NSLock()
    private var openConnections = 0
    private var isStopped = false

    /// Binds `host:port` (port 0: any free port); `start()` begins serving.
    public init(
        host: String = "127.0.0.1", port: UInt16, limits: HTTPRequestParser.Limits = .init(), timeoutSeconds: Int = 30,
        maxConnections: Int = 64, handler: @escaping Handler
    ) throws(SocketError) {
        listener = try Socket.listen(host: host, port: port)
        self.limits = limits
        self.timeoutSeconds = timeoutSeconds
        self.maxConnections = maxConnections
        self.handler = handler
    }

    /// The bound port (the chosen one with port 0).
    public var port: UInt16 { listener.localPort }

    /// Accepts connections on a thread of its own until `stop()`.
    public func start() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "http-accept"
        thread.start()
    }

    /// Stops accepting; connections already open finish their request.
    public func stop() {
        lock.withLock { isStopped = true }
        listener.shutdownBoth()
        listener.close()
    }

    private func acceptLoop() {
        while true {
            let stopped = lock.withLock { isStopped }
            if stopped { return }
            guard let connection = listener.accept() else {
                if lock.withLock({ isStopped }) { return }
                // EMFILE and the like: give the system a moment rather than spin.
                usleep(10_000)
                continue
            }
            let admitted = lock.withLock {
                guard openConnections < maxConnections else { return false }
                openConnections += 1
                return true
            }
            connection.configureConnection(timeoutSeconds: timeoutSeconds)
            guard admitted else {
                connection.write(Self.errorResponse(503, "too many connections at once; try again").serialized)
                connection.close()
                continue
            }
            let thread = Thread { [self] in
                serve(connection)
                lock.withLock { openConnections -= 1 }
            }
            thread.name = "http-connection"
            thread.start()
        }
    }

    /// One request, one response, then the connection closes.
    private func serve(_ connection: Socket) {
        var parser = HTTPRequestParser(limits: limits)
        var response: HTTPResponse
        var answeredEarly = false
        reading: while true {
            guard let bytes = connection.read() else {
                connection.close()  // a timeout or a reset: nobody to answer
                return
            }
            if bytes.isEmpty {
                connection.close()  // the client closed before a whole request
                return
            }
            switch parser.feed(bytes) {
            case .needMore: continue
            case .continueExpected:
                connection.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                continue
            case .failed(let error):
                response = Self.errorResponse(error.status, error.message)
                answeredEarly = true
                break reading
            case .request(let request):
                response = handler(request)
                break reading
            }
        }
        connection.write(response.serialized)
        if answeredEarly {
            connection.lingeringClose()
        } else {
            connection.close()
        }
        response.afterSending?()
    }

    /// `{"error": "a sentence"}`, the test-service protocol's error body.
    public static func errorResponse(_ status: Int, _ message: String) -> HTTPResponse {
        var escaped = ""
        for scalar in message.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20: escaped += " "
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return HTTPResponse(
            status: status, headers: [("Content-Type", "application/json")],
            body: Array("{\"error\": \"\(escaped)\"}".utf8))
    }
}
