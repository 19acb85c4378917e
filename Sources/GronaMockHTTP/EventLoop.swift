import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State every loop of one server reads: routes, settings, the connection count.
final class ServerContext: Sendable {
    let configuration: HTTPServer.Configuration
    let router: Router
    let logger: Logger
    /// Hears of every answer as it is queued, and of every request abandoned (metrics); nil costs nothing.
    let observer: (@Sendable (HTTPServer.Answered) -> Void)?
    /// Open connections across all loops, for the connection cap.
    let openConnections = Atomic<Int>(0)
    /// Set once when shutdown begins: the monotonic time by which every connection must be closed.
    let shutdownDeadline = Atomic<UInt64>(0)
    /// Every loop of the server, for dealing accepted connections round-robin; set once they exist.
    let loops = Late<[EventLoop]>()
    let nextLoop = Atomic<Int>(0)

    init(
        configuration: HTTPServer.Configuration, router: Router, logger: Logger,
        observer: (@Sendable (HTTPServer.Answered) -> Void)?
    ) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.observer = observer
    }
}

/// One thread that owns a set of connections and serves them from readiness events.
///
/// Everything but `execute` and `beginShutdown` is confined to the loop's own thread; that confinement is
/// what makes the `@unchecked Sendable` sound (the same contract as swift-nio's event loops).
final class EventLoop: @unchecked Sendable {
    /// Listener `i` is watched with token `firstListenerToken + i`; connections take the tokens after them.
    private static let firstListenerToken: UInt64 = 1

    let context: ServerContext
    private let poller: Poller
    private let listeners: [ListeningSocket]
    private let tasks = Mutex<[@Sendable () -> Void]>([])
    let shutdownRequested = Atomic<Bool>(false)

    /// Whether this loop takes new connections: open; paused, out of file descriptors, until a monotonic
    /// time; or closed for good at shutdown. Paused and closed loops do not watch the listeners.
    enum Accepting: Equatable {
        case open
        case paused(until: UInt64)
        case closed
    }

    // Confined to the loop thread.
    private var connections: [UInt64: Connection] = [:]
    private var nextToken: UInt64
    private var accepting = Accepting.open
    private var shuttingDown = false
    private var spareDescriptor: Int32 = -1
    /// At most a line per 10 s each, counting what they held back: descriptors run out for every client at once.
    private var refusedWarning = ThrottledWarning(
        "out of file descriptors; refused a connection", everyNanoseconds: 10_000_000_000)
    private var pausedWarning = ThrottledWarning(
        "out of file descriptors, with none spare; accepting again in 100 ms", everyNanoseconds: 10_000_000_000)
    private(set) var now: UInt64 = MonotonicClock.now()
    private var nextTimeoutCheck: UInt64 = 0
    /// Used on the loop's thread alone, one `head(for:)` call at a time, which calls nothing back: no two
    /// accesses can overlap, so the runtime's exclusivity check, on every answer, is left out.
    @exclusivity(unchecked) var encoder = ResponseEncoder()
    /// One receive buffer shared by the loop's connections: bytes are copied out before the next read.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Where a transport that frames what it sends (TLS) gathers small buffers into one record, during one
    /// `send` call; one TLS record's worth of plaintext.
    let sendScratch: UnsafeMutableRawBufferPointer

    init(context: ServerContext, listeners: [ListeningSocket]) throws(SystemError) {
        self.context = context
        self.listeners = listeners
        nextToken = Self.firstListenerToken + UInt64(listeners.count)
        poller = try Poller(context.configuration.pollerBackend)
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        sendScratch = .allocate(byteCount: 16 * 1024, alignment: 16)
        try watchListeners()
        spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    deinit {
        readBuffer.deallocate()
        sendScratch.deallocate()
        if spareDescriptor >= 0 { close(spareDescriptor) }
    }

    // MARK: - Any thread

    /// Runs `task` on the loop thread soon. Wakes the loop only when the queue was empty, so a burst of
    /// completions (a group commit answering many requests) costs one wake-up.
    func execute(_ task: @escaping @Sendable () -> Void) {
        let wasEmpty = tasks.withLock { tasks in
            tasks.append(task)
            return tasks.count == 1
        }
        if wasEmpty { poller.wakeup() }
    }

    /// Stops accepting, closes idle connections and lets the others finish their requests.
    func beginShutdown() {
        shutdownRequested.store(true, ordering: .releasing)
        poller.wakeup()
    }

    // MARK: - Loop thread

    /// Serves until shutdown has finished or its deadline passed.
    func run() {
        while true {
            var ready = 0
            do {
                ready = try poller.wait(timeoutMilliseconds: waitTimeout())
            } catch {
                context.logger.error("event loop wait failed", [("error", "\(error)")])
            }
            // Before handling: a connection accepted now must not take its deadlines from before the wait.
            now = MonotonicClock.now()
            if case .paused(let until) = accepting, now >= until { resumeAccepting() }
            for index in 0..<ready { handle(poller.event(at: index)) }
            let pending = takeTasks()
            // Checked after taking the tasks: a response queued after `shutdown()` must already see the
            // loop shutting down, so that it carries `Connection: close`.
            if shutdownRequested.load(ordering: .acquiring) && !shuttingDown { startShutdown() }
            for task in pending { task() }
            if now >= nextTimeoutCheck {
                nextTimeoutCheck = now + 100_000_000
                for connection in Array(connections.values) { connection.checkTimeouts(now: now) }
                refusedWarning.flush(at: now, logger: context.logger)
                pausedWarning.flush(at: now, logger: context.logger)
            }
            if shuttingDown {
                if connections.isEmpty || now >= context.shutdownDeadline.load(ordering: .relaxed) {
                    for connection in Array(connections.values) { connection.close(.loopClosed) }
                    // A connection another loop accepted just before shutdown may still be on its way here:
                    // adopt closes it, rather than leaving its descriptor open with no loop.
                    for task in takeTasks() { task() }
                    return
                }
            }
        }
    }

    /// Sleep forever when there is nothing to time out or resume; otherwise wake for the next timeout check.
    private func waitTimeout() -> Int32 {
        guard connections.isEmpty, !shuttingDown, case .open = accepting else { return 100 }
        return -1
    }

    private func handle(_ event: Poller.Event) {
        switch event.token {
        case Poller.wakeupToken:
            break
        case Self.firstListenerToken..<nextTokenAfterListeners:
            acceptConnections(from: listeners[Int(event.token - Self.firstListenerToken)])
        default:
            guard let connection = connections[event.token] else { return }
            if event.hangup {
                connection.close(.connectionLost)
                return
            }
            if event.writable { connection.writable() }
            if event.readable { connection.readable() }
            if event.readHangup { connection.readHangup() }
        }
    }

    private func takeTasks() -> [@Sendable () -> Void] {
        tasks.withLock { tasks -> [@Sendable () -> Void] in
            defer { tasks.removeAll(keepingCapacity: true) }
            return tasks
        }
    }

    /// Accepts what is waiting, a bounded number at a time so one busy listener cannot starve the
    /// connections already open.
    private func acceptConnections(from listener: ListeningSocket) {
        for _ in 0..<64 where accepting == .open {
            let accepted: (fd: Int32, peer: String)?
            do {
                accepted = try Socket.accept(listener.fd)
            } catch {
                if error.errno == EMFILE || error.errno == ENFILE {
                    if !refuseWithSpareDescriptor(listener) { pauseAccepting() }
                } else {
                    context.logger.warning("accept failed", [("error", "\(error)")])
                }
                return
            }
            guard let (fd, peer) = accepted else { return }
            let open = context.openConnections.add(1, ordering: .relaxed).newValue
            guard open <= context.configuration.maxConnections else {
                context.openConnections.subtract(1, ordering: .relaxed)
                refuse(fd, on: listener)
                continue
            }
            // Deal connections round-robin across the loops: whichever loop the kernel woke accepts them,
            // and a burst of connections would otherwise all land on it.
            let loops = context.loops.value ?? []
            let target =
                loops.isEmpty ? self : loops[context.nextLoop.add(1, ordering: .relaxed).newValue % loops.count]
            let transport = listener.transport
            if target === self || target.shutdownRequested.load(ordering: .acquiring) {
                adopt(fd, peer: peer, transport: transport)
            } else {
                target.execute { target.adopt(fd, peer: peer, transport: transport) }
            }
        }
    }

    /// Takes an accepted connection into this loop (closing it if the loop is already shutting down).
    /// The transport is made here, on the loop that owns the connection, since it is confined to it.
    private func adopt(_ fd: Int32, peer: String, transport factory: (any ConnectionTransportFactory)?) {
        guard !shuttingDown, let transport = Self.transport(for: fd, from: factory) else {
            context.openConnections.subtract(1, ordering: .relaxed)
            close(fd)
            return
        }
        let connection = Connection(token: nextToken, fd: fd, peer: peer, transport: transport, loop: self)
        do {
            try poller.register(fd, token: nextToken, interest: .read)
        } catch {
            context.openConnections.subtract(1, ordering: .relaxed)
            transport.close(cut: false)
            return
        }
        connections[nextToken] = connection
        nextToken += 1
    }

    /// The socket itself when the listener has no transport of its own; nil when its factory could make none.
    private static func transport(
        for fd: Int32, from factory: (any ConnectionTransportFactory)?
    ) -> (any ConnectionTransport)? {
        guard let factory else { return SocketTransport(fd: fd) }
        return factory.makeTransport(fd: fd)
    }

    /// Out of descriptors: free the spare one, accept with it, answer 503 and close, so the client hears
    /// why instead of waiting in the backlog while the listener spins. False when there is no spare to free:
    /// another thread took the descriptor between its close and its reopening, and none is free yet.
    private func refuseWithSpareDescriptor(_ listener: ListeningSocket) -> Bool {
        if spareDescriptor < 0 { spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC) }
        guard spareDescriptor >= 0 else { return false }
        close(spareDescriptor)
        if let (fd, _) = try? Socket.accept(listener.fd) { refuse(fd, on: listener) }
        spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        refusedWarning.occurred(at: now, logger: context.logger)
        return true
    }

    /// Out of descriptors with no spare: stop watching the listeners for `acceptPause`, since a listener left
    /// readable would wake this loop at once, again and again, with nothing it could accept. The clients wait
    /// in the backlog meanwhile; the other loops, and this one after the pause, take them as descriptors free up.
    ///
    /// The other loops are asked to accept now: the listeners wake one loop per connection (`exclusive`), so the
    /// client this loop was woken for raised no wake-up elsewhere, and a loop that still has its spare would
    /// never hear of it. A client sending one request at a time then waited in the backlog for its timeout
    /// instead of hearing a 503 (a loaded CI run, two loops, one of them having lost its spare to the other's
    /// accept between the spare's close and its reopening).
    private func pauseAccepting() {
        guard case .open = accepting else { return }
        unwatchListeners()
        accepting = .paused(until: now + Self.acceptPause)
        pausedWarning.occurred(at: now, logger: context.logger)
        for loop in context.loops.value ?? [] where loop !== self {
            loop.execute { loop.acceptWaiting() }
        }
    }

    /// Accepts what waits on every listener, if this loop accepts now: asked by a loop that had to pause.
    private func acceptWaiting() {
        for listener in listeners { acceptConnections(from: listener) }
    }

    private func resumeAccepting() {
        try? watchListeners()
        accepting = .open
    }

    /// Watches every listener, each with its own token, waking one loop per connection where the poller can.
    private func watchListeners() throws(SystemError) {
        for (index, listener) in listeners.enumerated() {
            try poller.register(
                listener.fd, token: Self.firstListenerToken + UInt64(index), interest: .read, exclusive: true)
        }
    }

    private func unwatchListeners() {
        for listener in listeners { poller.unregister(listener.fd) }
    }

    /// How long a loop out of descriptors, with no spare, stops accepting.
    private static let acceptPause: UInt64 = 100_000_000

    /// Turns a client away with a 503, or what the listener's protocol says instead (a TLS alert).
    private func refuse(_ fd: Int32, on listener: ListeningSocket) {
        if let transport = listener.transport {
            Socket.sendNow(fd, transport.refusal)
        } else {
            var response = HTTPError.tooManyConnections.response
            response.closesConnection = true
            Socket.sendNow(fd, encoder.head(for: response, keepAlive: false, http10: false) + response.body)
        }
        close(fd)
    }

    private func startShutdown() {
        shuttingDown = true
        if case .open = accepting { unwatchListeners() }
        accepting = .closed
        for connection in Array(connections.values) { connection.shutdownRequested() }
    }

    // MARK: - Connection bookkeeping

    func setInterest(_ connection: Connection, _ interest: Poller.Interest) {
        do {
            try poller.modify(connection.fd, token: connection.token, interest: interest)
        } catch {
            connection.close(.loopClosed)
        }
    }

    func remove(_ connection: Connection) {
        poller.unregister(connection.fd)
        connections[connection.token] = nil
        context.openConnections.subtract(1, ordering: .relaxed)
    }

    /// True as soon as `shutdown()` was called, even before this loop has run its shutdown: a response
    /// queued in that window (a handler answering inline from another thread) must still say `close`.
    private var nextTokenAfterListeners: UInt64 { Self.firstListenerToken + UInt64(listeners.count) }

    var isShuttingDown: Bool { shuttingDown || shutdownRequested.load(ordering: .acquiring) }
}
