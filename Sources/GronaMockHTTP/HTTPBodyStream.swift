import GronaMockPlatform

/// A response body made piece by piece, for answers too large to hold whole (an export of millions of
/// events): sent with `Transfer-Encoding: chunked` (RFC 9112 §7.1), each piece one chunk; to an HTTP/1.0
/// client, as it comes and closed at the end (RFC 9112 §6.3, item 8).
///
/// **Back-pressure.** The connection asks for the next piece only when what it has queued for the socket is
/// under `lowWater`, and one piece at a time: a client that reads slowly (or not at all) stops the producer,
/// so the server holds at most `lowWater` plus one piece for it, whatever the body's size.
/// **Threads.** `next` runs on the `executor` given (the blocking pool), never on an event loop, and never
/// twice at once. **Ending.** `next` answers nil at the end; a throw after the head was sent can only cut
/// the body short: the connection is closed without the last chunk, which tells the client it is incomplete.
/// A client that goes away cancels the stream: no further piece is asked for, and the state is released.
public final class HTTPBodyStream: Sendable {
    /// What the connection keeps queued for the socket before it asks for more. Above one piece of an export
    /// (a page of 1,000 events, about 400 KiB), so the next piece is made while the last is still being sent
    /// and read: with a quarter of a MiB the producer waited for the client at every piece.
    public static let lowWater = 1024 * 1024

    enum Piece: Sendable {
        case bytes([UInt8])
        case end
        case failed
    }

    private let produce: Mutex<Producer?>
    private let executor: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let produced = Atomic<Int>(0)
    private let cancelled = Atomic<Bool>(false)

    /// Whether the stream ends when its client closes its sending side. An endless body (Server-Sent Events)
    /// has no reader left then: a browser leaving a page closes its connection, and otherwise only a failed
    /// write, perhaps a heartbeat later, would tell. A finite body goes on, as RFC 9112 §9.6 lets a client
    /// half-close and still read the answer.
    public let stopsWhenClientCloses: Bool

    /// The producer, in a struct: a function type as a `Mutex`'s value is stored at its most general
    /// abstraction, and each `withLock` gave its body a reabstracted copy and stored that back, two more thunks
    /// around the closure per piece. A live stream left open for hours grew slower at every piece, and would
    /// in time have overflowed the stack. A struct is passed as it is stored.
    private struct Producer: Sendable {
        let next: @Sendable () throws -> [UInt8]?
    }

    /// A stream whose pieces `next` makes from `state`, run on `executor`.
    public init<State: Sendable>(
        state: State, executor: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
        stopsWhenClientCloses: Bool = false,
        next: @escaping @Sendable (inout State) throws -> [UInt8]?
    ) {
        let box = PortableMutex(state)
        produce = Mutex(Producer(next: { try box.withLock { state in try next(&state) } }))
        self.executor = executor
        self.stopsWhenClientCloses = stopsWhenClientCloses
    }

    /// Bytes made so far: how far the producer ran ahead, for tests and metrics.
    public var producedBytes: Int { produced.load(ordering: .relaxed) }

    /// Whether the connection gave up on the stream (the client went away, or the server stopped).
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Makes the next piece on the executor and hands it to `deliver` there.
    func pull(_ deliver: @escaping @Sendable (Piece) -> Void) {
        executor { [self] in
            guard !isCancelled, let producer = produce.withLock({ $0 }) else { return deliver(.end) }
            do {
                guard let bytes = try producer.next() else {
                    release()
                    return deliver(.end)
                }
                produced.add(bytes.count, ordering: .relaxed)
                deliver(.bytes(bytes))
            } catch {
                release()
                deliver(.failed)
            }
        }
    }

    /// No more pieces: the state (a database cursor, a page) is released at once.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        release()
    }

    private func release() { produce.withLock { $0 = nil } }

    /// What goes before a chunk of `size` bytes: its size in hex and CRLF (RFC 9112 §7.1).
    static func chunkHead(_ size: Int) -> [UInt8] {
        Array(String(size, radix: 16).utf8) + [0x0D, 0x0A]
    }

    /// What ends a chunk's data: CRLF.
    static let chunkEnd: [UInt8] = [0x0D, 0x0A]

    /// The last chunk, with no trailer.
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}
