import GronaMockPlatform

#if canImport(Glibc)
import Glibc
import GronaMockCLinux
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server over POSIX sockets: one listening socket per listener (plain HTTP, HTTPS), shared by a
/// few event loops, one thread each.
///
/// `start` returns once the sockets are bound, so `port` is the real one even when 0 was asked for.
/// `shutdown` stops accepting and lets requests in flight finish; `wait` returns when every loop is done.
public final class HTTPServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// The ports to listen on, each with its transport (plain HTTP, TLS); the first is `HTTPServer.port`.
        public var listeners: [Listener]
        /// The first listener's port, the single-port form of `listeners`. 0 picks a free port; read the
        /// real one from `HTTPServer.port`.
        public var port: Int {
            get { listeners.first?.port ?? 0 }
            set {
                if listeners.isEmpty {
                    listeners = [.plain(port: newValue)]
                } else {
                    listeners[0].port = newValue
                }
            }
        }
        /// Event loop threads; by default one per core.
        public var eventLoops: Int
        /// Open connections beyond this are answered 503 and closed.
        public var maxConnections: Int
        /// From a request's first byte to the end of its header section: 408 after.
        public var headerTimeout: Duration
        /// From the end of the header section to the end of the body: 408 after.
        public var bodyTimeout: Duration
        /// A keep-alive connection with no request in progress is closed after this.
        public var idleTimeout: Duration
        /// A client that reads none of a pending response for this long is disconnected.
        public var writeTimeout: Duration
        /// After `shutdown`, connections still open are closed at this deadline.
        public var shutdownTimeout: Duration
        /// Requests read ahead of their responses on one connection before reading pauses.
        public var maxPipelinedRequests: Int
        public var parserLimits: HTTPParserLimits
        /// One log line per request: method, path, status, body bytes, duration.
        public var accessLog: Bool
        /// How the event loops wait for readiness: epoll on Linux, poll(2) elsewhere. Tests pick poll(2) on
        /// Linux to serve through the code macOS runs.
        package var pollerBackend: PollerBackend = .platformDefault

        public init(
            host: String = "127.0.0.1", port: Int = 8080, eventLoops: Int = HTTPServer.coreCount,
            maxConnections: Int = 10_000, headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(30),
            idleTimeout: Duration = .seconds(75), writeTimeout: Duration = .seconds(60),
            shutdownTimeout: Duration = .milliseconds(4500), maxPipelinedRequests: Int = 64,
            parserLimits: HTTPParserLimits = HTTPParserLimits(), accessLog: Bool = false
        ) {
            self.host = host
            self.listeners = [.plain(port: port)]
            self.eventLoops = eventLoops
            self.maxConnections = maxConnections
            self.headerTimeout = headerTimeout
            self.bodyTimeout = bodyTimeout
            self.idleTimeout = idleTimeout
            self.writeTimeout = writeTimeout
            self.shutdownTimeout = shutdownTimeout
            self.maxPipelinedRequests = maxPipelinedRequests
            self.parserLimits = parserLimits
            self.accessLog = accessLog
        }
    }

    /// One port to listen on and how its connections are carried.
    public struct Listener: Sendable {
        /// 0 picks a free port.
        public var port: Int
        /// Makes each connection's transport; nil is plain HTTP on the socket.
        package var transport: (any ConnectionTransportFactory)?

        public static func plain(port: Int) -> Listener { Listener(port: port, transport: nil) }

        package static func layered(port: Int, transport: any ConnectionTransportFactory) -> Listener {
            Listener(port: port, transport: transport)
        }

        /// `http`, or the transport's own (`https`).
        public var scheme: String { transport?.scheme ?? "http" }
    }

    /// A listener once bound: its real port and the URL clients use.
    public struct BoundListener: Sendable {
        public let scheme: String
        public let port: Int
        public let url: String
    }

    /// One answered request, as the observer given to `start` hears of it; or one abandoned, its connection
    /// closed before its answer, with status 499 (nginx's "client closed request"), which is never sent.
    public struct Answered: Sendable {
        /// The route pattern that took it (`/v1/mobile/workspaces/{workspaceKey}/config`), or `unmatched`.
        public let route: String
        public let method: HTTPMethod
        public let status: Int
        /// From the end of the request head to the answer being queued, or to the request being abandoned.
        public let seconds: Double
    }

    /// Online processors, the default number of event loops.
    public static var coreCount: Int { LoopThread.coreCount }

    /// The first listener's real port.
    public let port: Int
    public let host: String
    /// Every listener with its real port, in the configuration's order.
    public let listeners: [BoundListener]
    private let context: ServerContext
    private let sockets: [ListeningSocket]
    private let loops: [EventLoop]
    private let threads: Mutex<[LoopThread]>
    private let stopped = Atomic<Bool>(false)

    private init(context: ServerContext, sockets: [ListeningSocket], loops: [EventLoop]) {
        self.context = context
        self.sockets = sockets
        self.host = context.configuration.host
        let shown = host.contains(":") ? "[\(host)]" : host
        self.listeners = sockets.map { socket in
            let scheme = socket.transport?.scheme ?? "http"
            return BoundListener(scheme: scheme, port: socket.port, url: "\(scheme)://\(shown):\(socket.port)")
        }
        self.port = sockets.first?.port ?? 0
        self.loops = loops
        self.threads = Mutex([])
    }

    /// Binds every listener, starts the event loops, and returns; throws when an address cannot be bound
    /// (nothing is left bound then).
    public static func start(
        configuration: Configuration, router: Router, logger: Logger = Logger(),
        observer: (@Sendable (Answered) -> Void)? = nil
    ) throws(SystemError) -> HTTPServer {
        let context = ServerContext(configuration: configuration, router: router, logger: logger, observer: observer)
        var sockets: [ListeningSocket] = []
        var loops: [EventLoop] = []
        do throws(SystemError) {
            guard !configuration.listeners.isEmpty else {
                throw SystemError(call: "listen", reason: "no port to listen on")
            }
            for listener in configuration.listeners {
                let (fd, port) = try Socket.listen(host: configuration.host, port: listener.port)
                sockets.append(ListeningSocket(fd: fd, port: port, transport: listener.transport))
            }
            for _ in 0..<max(1, configuration.eventLoops) {
                loops.append(try EventLoop(context: context, listeners: sockets))
            }
        } catch {
            for socket in sockets { close(socket.fd) }
            throw error
        }
        context.loops.value = loops
        let server = HTTPServer(context: context, sockets: sockets, loops: loops)
        let threads = loops.enumerated().map { index, loop in
            LoopThread.spawn(name: "grona-loop-\(index)") { loop.run() }
        }
        server.threads.withLock { $0 = threads }
        for socket in sockets { socket.transport?.startServing() }
        return server
    }

    /// The first listener's base URL, with IPv6 hosts in brackets.
    public var url: String { listeners.first?.url ?? "" }

    /// Stops accepting connections, closes idle ones, and lets requests in flight finish before
    /// `shutdownTimeout`. Returns at once; `wait` blocks until it is done. Safe to call more than once.
    public func shutdown() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let deadline = MonotonicClock.deadline(from: MonotonicClock.now(), after: context.configuration.shutdownTimeout)
        context.shutdownDeadline.store(deadline, ordering: .relaxed)
        for loop in loops { loop.beginShutdown() }
    }

    /// Blocks until every event loop has finished, then releases the listening sockets and stops what their
    /// transports run beside the loops.
    public func wait() {
        let threads = self.threads.withLock { threads -> [LoopThread] in
            defer { threads.removeAll() }
            return threads
        }
        guard !threads.isEmpty else { return }
        for thread in threads { thread.join() }
        context.loops.value = nil  // the loops and the context refer to each other
        for socket in sockets {
            close(socket.fd)
            socket.transport?.stopServing()
        }
    }

    /// Open connections right now, across all loops.
    public var openConnections: Int { context.openConnections.load(ordering: .relaxed) }

    /// The routes served, in registration order.
    public var routes: [(method: HTTPMethod, pattern: String)] { context.router.table }
}

/// A bound, listening socket and the transport of the connections it accepts.
struct ListeningSocket: Sendable {
    let fd: Int32
    let port: Int
    let transport: (any ConnectionTransportFactory)?
}
