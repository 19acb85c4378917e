import GronaMock
import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection that `LISTEN`s, on a thread of its own that sleeps in poll(2) on the connection's socket
/// and a wake pipe: never on an event loop, and never holding a pooled connection. It hands each batch of
/// notifications to `handle`, and an empty batch every `tick` and after each (re)connect, when a
/// notification may have been missed (PostgreSQL does not keep them for a listener that is away).
///
/// A lost connection is opened again after a pause that doubles from 100 ms to 2 s.
final class PostgresListener: Sendable {
    static let tick: Duration = .milliseconds(500)

    private let stopping = Atomic<Bool>(false)
    /// The read and write ends of the pipe that wakes the thread to stop.
    private let wake: (read: Int32, write: Int32)
    private let thread = Mutex<LoopThread?>(nil)

    init(
        url: PostgresURL, channels: [String], logger: Logger,
        handle: @escaping @Sendable ([PostgresNotification]) -> Void
    ) {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { logger.error("no wake pipe for the listener; it stops at its next tick", []) }
        wake = (ends[0], ends[1])
        let loop = Loop(url: url, channels: channels, logger: logger, handle: handle)
        let started = LoopThread.spawn(name: "grona-listen") { [self] in
            loop.run(wake: wake.read) { stopping.load(ordering: .acquiring) }
        }
        thread.withLock { $0 = started }
    }

    /// Wakes the thread, waits for it, and closes the connection and the pipe.
    func stop() {
        stopping.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        let running = thread.withLock { thread -> LoopThread? in
            defer { thread = nil }
            return thread
        }
        guard let running else { return }
        running.join()
        for descriptor in [wake.read, wake.write] where descriptor >= 0 { close(descriptor) }
    }
}

/// The listening thread's own state: its connection never leaves it.
private struct Loop: Sendable {
    let url: PostgresURL
    let channels: [String]
    let logger: Logger
    let handle: @Sendable ([PostgresNotification]) -> Void

    func run(wake: Int32, stopping: () -> Bool) {
        var connection: PostgresConnection?
        var pause: Duration = .milliseconds(100)
        var nextTick = ContinuousClock.now + PostgresListener.tick
        var reported = false
        while !stopping() {
            if connection == nil {
                do {
                    connection = try listen()
                    pause = .milliseconds(100)
                    if reported { logger.info("listening to the shared run-time state again", []) }
                    reported = false
                    handle([])
                } catch {
                    if !reported {
                        logger.warning(
                            "not listening to the shared run-time state; retrying",
                            [("error", error.redacting(url.secrets).message)])
                        reported = true
                    }
                    _ = Self.wait(for: [wake], upTo: pause)
                    pause = min(pause * 2, .seconds(2))
                    continue
                }
            }
            guard let listening = connection else { continue }
            let now = ContinuousClock.now
            let ready = Self.wait(for: [listening.socket, wake], upTo: nextTick > now ? nextTick - now : .zero)
            if stopping() { break }
            if ready.contains(listening.socket) {
                do {
                    try listening.consumeInput()
                    let received = listening.notifications()
                    if !received.isEmpty { handle(received) }
                } catch {
                    connection = nil
                    continue
                }
                if listening.isBroken { connection = nil }
            }
            if ContinuousClock.now >= nextTick {
                nextTick = ContinuousClock.now + PostgresListener.tick
                handle([])
            }
        }
    }

    private func listen() throws(PostgresError) -> PostgresConnection {
        let connection = try PostgresConnection(parameters: url.connectionParameters)
        for channel in channels { try connection.execute("LISTEN \(channel)") }
        return connection
    }

    /// The descriptors of `descriptors` that are readable (or closed) within `timeout`.
    private static func wait(for descriptors: [Int32], upTo timeout: Duration) -> Set<Int32> {
        var polled = descriptors.filter { $0 >= 0 }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = Int32(clamping: max(0, timeout.milliseconds))
        guard poll(&polled, nfds_t(polled.count), milliseconds) > 0 else { return [] }
        return Set(polled.filter { $0.revents != 0 }.map(\.fd))
    }
}
