import GronaMockPlatform
import GronaMockTLSCore

/// An HTTP/1.1 client for one host and port on non-blocking sockets, driven by the caller's loop on one thread:
/// keep-alive connections up to a cap, requests queued when every connection is busy, a deadline per request,
/// answers framed by `Content-Length` or chunks, each read to its request's limit, and all of them together
/// kept within one memory budget that does not grow with the connections (`AnswerMemory`). Made for a load
/// generator: no threads, no locks, one `Poller`, and no allocation per request beyond the answer's body.
///
/// Confined to the thread that made it (not `Sendable`).
package final class HTTPClient {
    package struct Configuration: Sendable {
        package var host: String
        package var port: Int
        /// Connections open at most; requests beyond them wait in a queue (their latency counts the wait).
        package var maxConnections: Int
        /// From the moment a request is handed to a connection to the end of its answer.
        package var timeout: Duration
        package var pollerBackend: PollerBackend
        /// The bytes of answers kept at once, for all connections together (`AnswerMemory`): it does not grow
        /// with `maxConnections`.
        package var answerMemory: Int
        /// The largest answer limit of a request (`ClientRequest.answerLimit`); larger ones are held to it. The
        /// answer memory keeps room for one answer this large and a head.
        package var largestAnswer: Int
        /// An `https://` target: every connection makes a TLS handshake that verifies the server before its
        /// first request (`HTTPClient+TLS.swift`). Nil in the clear.
        package var tls: TLSClientContext?

        /// 64 MiB of answers: five of the largest configurations at once, or thousands of answers of a few KiB
        /// each, whatever `--max-in-flight` is.
        package static let defaultAnswerMemory = 64 * 1024 * 1024

        package init(
            host: String, port: Int, maxConnections: Int = 256, timeout: Duration = .seconds(10),
            pollerBackend: PollerBackend = .platformDefault, answerMemory: Int = defaultAnswerMemory,
            largestAnswer: Int = HTTPResponseParser.maximumBodyBytes, tls: TLSClientContext? = nil
        ) {
            self.tls = tls
            self.host = host
            self.port = port
            self.maxConnections = max(1, maxConnections)
            self.timeout = timeout
            self.pollerBackend = pollerBackend
            self.answerMemory = answerMemory
            self.largestAnswer = min(max(0, largestAnswer), HTTPResponseParser.maximumBodyBytes)
        }
    }

    package let configuration: Configuration
    let poller: Poller
    private let hostHeader: String
    private(set) var connections: [ClientConnection] = []
    private var freeSlots: [Int] = []
    private var idleSlots: [Int] = []
    private var openConnections = 0
    private var queue = RequestQueue()
    private var completions: [ClientCompletion] = []
    /// One read buffer for every connection: a read is handled before the next one.
    let scratch: UnsafeMutableRawBufferPointer
    /// What the connections' answers keep, held to `configuration.answerMemory`.
    var memory: AnswerMemory
    private var lastTimeoutScan: UInt64 = 0
    /// Connections whose TLS session holds bytes already read from the socket: read on the next turn, which
    /// does not wait for the poller (`HTTPClient+TLS.swift`).
    var tlsBuffered: [Int] = []
    /// Why the last TLS handshake failed, for a message (the report counts the failures by kind).
    package internal(set) var lastTLSFailure: String?

    /// Reads of the 64 KiB buffer one connection gets per wake-up (1 MiB).
    static let readsPerWakeup = 16

    /// Requests submitted and not yet completed: queued, connecting, sending or awaiting their answer.
    package private(set) var inFlight = 0

    /// Requests waiting for a connection: every one of `maxConnections` carries a request.
    package var queued: Int { queue.count }

    /// Requests on a connection and not yet answered (connecting, sending or awaiting): at most
    /// `maxConnections`. What a progress line calls "in flight".
    package var onConnections: Int { inFlight - queue.count }

    /// The clock as last read: right after each wait for sockets, or by `tick()`. Answers are stamped with it
    /// (they had arrived when the wait returned) and deadlines count from it, so that a busy loop reads the
    /// clock once per turn rather than once per answer and deadline (a profile at 60k visits/s spent 12% of
    /// its time in clock_gettime). Only a request's hand-over reads it again (`submitNow`), once per request.
    package private(set) var now: UInt64

    package init(_ configuration: Configuration) throws(SystemError) {
        self.configuration = configuration
        poller = try Poller(configuration.pollerBackend, capacity: min(configuration.maxConnections + 1, 4096))
        // An IPv6 address is bracketed in Host (RFC 9112 §3.2 with RFC 3986 §3.2.2).
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        hostHeader = "\(host):\(configuration.port)"
        scratch = .allocate(byteCount: 64 * 1024, alignment: 16)
        memory = AnswerMemory(
            budget: configuration.answerMemory,
            largestGrant: configuration.largestAnswer + HTTPResponseParser.maximumHeadBytes)
        now = MonotonicClock.now()
    }

    deinit {
        for connection in connections where connection.fd >= 0 {
            poller.unregister(connection.fd)
            Socket.close(connection.fd)
        }
        scratch.deallocate()
    }

    /// The `Host` field for requests built by callers.
    package var host: String { hostHeader }

    /// The most bytes of answers kept at once so far, and how many times an answer waited for room to be
    /// kept (its latency includes the wait).
    package var answerMemoryPeak: Int { memory.peak }
    package var answerMemoryWaits: Int { memory.waits }

    /// Reads the clock into `now` and returns it.
    @discardableResult
    package func tick() -> UInt64 {
        now = MonotonicClock.now()
        return now
    }

    /// Starts `request` on an idle connection, a new one, or queues it; its deadline counts from the clock
    /// read now.
    package func submit(_ request: ClientRequest) {
        var request = request
        request.submittedAt = tick()
        dispatch(request)
    }

    /// `submit` for a caller inside the poll loop: the deadline counts from `now`, the clock of this turn.
    package func submitNow(_ request: ClientRequest) {
        var request = request
        // The clock read here, not the turn's: a turn that built many batches was late for the last of them.
        request.submittedAt = MonotonicClock.now()
        dispatch(request)
    }

    private func dispatch(_ request: ClientRequest) {
        inFlight += 1
        var request = request
        request.answerLimit = min(request.answerLimit, configuration.largestAnswer)
        dispatch(request, now: now)
    }

    /// Waits up to `timeoutMilliseconds` for sockets, does what they allow, fails the requests whose deadline
    /// passed, and hands each finished request to `handle` (which may submit more).
    package func poll(timeoutMilliseconds: Int32, _ handle: (ClientCompletion) -> Void) {
        let timeout = tlsBuffered.isEmpty ? timeoutMilliseconds : 0
        handleReady((try? poller.wait(timeoutMilliseconds: timeout)) ?? 0, handle)
    }

    /// `poll(timeoutMilliseconds:)` to the nanosecond: the fleet's schedule is finer than a millisecond, and a
    /// wait rounded down to 0 spun a core the service under test should have had.
    package func poll(timeoutNanoseconds: UInt64, _ handle: (ClientCompletion) -> Void) {
        let timeout = tlsBuffered.isEmpty ? timeoutNanoseconds : 0
        handleReady((try? poller.wait(timeoutNanoseconds: timeout)) ?? 0, handle)
    }

    private func handleReady(_ ready: Int, _ handle: (ClientCompletion) -> Void) {
        let now = tick()
        for index in 0..<ready {
            let event = poller.event(at: index)
            guard event.token != Poller.wakeupToken, event.token <= UInt64(connections.count) else { continue }
            let connection = connections[Int(event.token) - 1]
            guard connection.fd >= 0 else { continue }
            let connecting = connection.state.state == .connecting || connection.state.state == .handshaking
            if event.writable || (event.hangup && connecting) {
                writable(connection)
            }
            if connection.fd >= 0 && connection.grant.isWaiting {
                // Not reading while it waits for memory; a hang-up, reported all the same, ends it (the peer
                // reset: what it had sent is lost).
                if event.hangup { perform(connection.state.connectionEnded(), on: connection) }
            } else if connection.fd >= 0 && (event.readable || event.hangup) {
                readable(connection)
            }
        }
        readBufferedTLS()
        if now &- lastTimeoutScan >= 5_000_000 {
            lastTimeoutScan = now
            for connection in connections where connection.fd >= 0 && connection.deadline <= now {
                if connection.state.state == .handshaking {
                    lastTLSFailure = "the TLS handshake did not finish within --timeout"
                }
                perform(connection.state.timedOut(), on: connection)
            }
        }
        var index = 0
        while index < completions.count {
            let completion = completions[index]
            index += 1
            handle(completion)
        }
        completions.removeAll(keepingCapacity: true)
        admitWaiting()
    }

    // MARK: - Dispatch

    private func dispatch(_ request: ClientRequest, now: UInt64) {
        while let slot = idleSlots.popLast() {
            let connection = connections[slot]
            guard connection.fd >= 0, connection.state.state == .idle else { continue }
            connection.begin(request, deadline: MonotonicClock.deadline(from: now, after: configuration.timeout))
            perform(connection.state.startRequest(), on: connection)
            return
        }
        guard openConnections < configuration.maxConnections else {
            queue.push(request)
            return
        }
        open(for: request, now: now)
    }

    private func open(for request: ClientRequest, now: UInt64) {
        let fd: Int32
        do {
            fd = try Socket.startConnect(host: configuration.host, port: String(configuration.port))
        } catch {
            finish(request, .failure(.connect))
            return
        }
        let slot = freeSlots.popLast() ?? connections.count
        let connection: ClientConnection
        if slot == connections.count {
            connection = ClientConnection(slot: slot)
            connections.append(connection)
        } else {
            connection = connections[slot]
        }
        connection.reopen(fd: fd)
        Socket.enableReceiveTimestamps(fd)
        do {
            try poller.register(fd, token: UInt64(slot + 1), interest: [.read, .write])
        } catch {
            Socket.close(fd)
            connection.fd = -1
            freeSlots.append(slot)
            finish(request, .failure(.connect))
            return
        }
        connection.interest = [.read, .write]
        openConnections += 1
        connection.begin(request, deadline: MonotonicClock.deadline(from: now, after: configuration.timeout))
    }

    // MARK: - Actions

    func perform(_ action: ClientConnectionState.Action, on connection: ClientConnection) {
        switch action {
        case .none:
            break
        case .handshake:
            handshake(connection)
        case .send:
            send(connection)
        case .awaitResponse:
            setInterest(connection, .read)
        case .deliver(let keepAlive):
            if let request = connection.request {
                finish(
                    request, .response(connection.parser.head, body: connection.parser.body),
                    answerLag: answerLag(connection))
            }
            releaseGrant(connection, delivered: connection.parser.body.count)
            connection.endRequest()
            if keepAlive {
                setInterest(connection, .read)
                becameIdle(connection)
            } else {
                close(connection)
            }
        case .fail(let failure):
            if let request = connection.request { finish(request, .failure(failure)) }
            releaseGrant(connection)
            connection.endRequest()
            close(connection)
        case .close:
            close(connection)
        }
    }

    private func becameIdle(_ connection: ClientConnection) {
        if let next = queue.pop() {
            connection.begin(
                next, deadline: MonotonicClock.deadline(from: now, after: configuration.timeout))
            perform(connection.state.startRequest(), on: connection)
        } else {
            idleSlots.append(connection.slot)
        }
    }

    private func close(_ connection: ClientConnection) {
        guard connection.fd >= 0 else { return }
        releaseGrant(connection)
        connection.tls = nil
        poller.unregister(connection.fd)
        Socket.close(connection.fd)
        connection.fd = -1
        openConnections -= 1
        freeSlots.append(connection.slot)
        if let slot = idleSlots.lastIndex(of: connection.slot) { idleSlots.remove(at: slot) }
        if let next = queue.pop() { open(for: next, now: now) }
    }

    private func finish(_ request: ClientRequest, _ outcome: ClientCompletion.Outcome, answerLag: UInt64 = 0) {
        inFlight -= 1
        completions.append(
            ClientCompletion(
                tag: request.tag, intendedStart: request.intendedStart, submittedAt: request.submittedAt,
                // A request that failed as it was submitted ends on this turn's clock, read before it was.
                finishedAt: max(now, request.submittedAt), answerLagNanoseconds: answerLag, outcome: outcome))
    }

    /// How long the whole answer waited in the socket before the loop woke to read it: from the kernel's stamp
    /// of its last bytes to `now`, the clock read as the wait returned. The stamp is on the system clock and
    /// `now` on the monotonic one; the two read back to back give the offset. 0 without a stamp (not Linux), or
    /// when the clocks disagree (the system clock stepped).
    /// Whether answers carry the kernel's receive stamps here, and so an answer lag (SO_TIMESTAMPNS, Linux).
    package static var stampsAnswers: Bool {
        #if os(Linux)
        true
        #else
        false
        #endif
    }

    private func answerLag(_ connection: ClientConnection) -> UInt64 {
        guard connection.arrival > 0 else { return 0 }
        let realtime = WallClock.nanoseconds()
        let monotonic = MonotonicClock.now()
        guard realtime >= connection.arrival else { return 0 }
        let sinceArrival = UInt64(realtime - connection.arrival)
        guard monotonic >= sinceArrival else { return 0 }
        let arrivedAt = monotonic - sinceArrival
        return now > arrivedAt ? now - arrivedAt : 0
    }

    /// Watches `connection` for `interest`, but never for reading while it waits for memory.
    func setInterest(_ connection: ClientConnection, _ interest: Poller.Interest) {
        let interest = connection.grant.isWaiting ? interest.subtracting(.read) : interest
        guard connection.interest != interest, connection.fd >= 0 else { return }
        connection.interest = interest
        try? poller.modify(connection.fd, token: UInt64(connection.slot + 1), interest: interest)
    }
}

@available(*, unavailable)
extension HTTPClient: Sendable {}
