import Dispatch
import GronaMockPlatform

/// `GronaStorage.scanEvents(_:into:_:)` read ahead on a thread of its own, so that reading the rows (the
/// database's stepping, copying the columns' bytes) and checking them overlap on two cores instead of taking
/// turns. The rows cross in packed chunks (`StoredEventBatch`), two allocations a chunk: as one value per row,
/// the reader allocated and the checker freed some five blocks an event, and glibc frees another thread's
/// memory under that thread's arena lock (issue 32).
///
/// Memory stays bounded: at most `depth` chunks of `chunkSize` rows wait between the reader and the caller.
/// When the caller stops early (a page filled), the reader stops at its next chunk; when the reader fails,
/// the caller sees its error once the rows before it are handed over. If no thread can be made, the scan
/// runs on the caller's thread as before.
///
/// What the reader reads past the caller's stop is wasted: at most `maxReadAhead` rows a scan. When each page of a
/// dense workspace was a scan of its own, that waste made chunks small (128 rows; a page of 1,000 violations ends
/// after some 2,300 events). Pages are now made ahead in runs, one scan across pages
/// (`ViolationScan.run(_:throughSequence:pageEnded:)`), so only a run's last page wastes its read-ahead, and the
/// chunks are 512 rows: each hand-over wakes the other thread, and on two cores the woken thread often took the
/// waker's core while the other sat idle, so four times fewer hand-overs followed every dense page some 5% faster
/// (issue 32). The queue holds 4 chunks. The first chunks are smaller (`firstChunkSize`, doubling), so a page that
/// stops after a few rows (a small `limit`, a first page) reads few past it.
enum PrefetchingScan {
    static let chunkSize = 512
    static let firstChunkSize = 16
    static let depth = 4
    /// A chunk is handed on once its bytes pass this too, so that a run of large events (32 KiB each at most
    /// from the events route, more from a database another program wrote) still waits in small pieces.
    static let maxChunkBytes = 1 << 20
    /// The chunks queued, the one the reader fills while it waits for room, and the rest of the one the caller
    /// stopped in: what a scan may read and never hand over.
    static let maxReadAhead = (depth + 2) * chunkSize

    /// Hands `body` the rows of `scan` (each as its chunk and its index there) until it answers false; returns
    /// how many rows the storage read, those read ahead and never handed over included (the work done, which
    /// tests bound). `prepare` is run on the reading thread on a chunk about to be handed over while the caller
    /// has another one waiting: work taken off the caller's thread when it is the slower, so `body` must accept
    /// chunks prepared or not (not run when the scan has no thread of its own). The rest of the last chunk is
    /// always prepared: the reader has nothing else to do.
    @discardableResult
    static func run(
        _ storage: any GronaStorage, _ scan: EventScan,
        prepare: (@Sendable (inout StoredEventBatch) -> Void)? = nil, _ body: (StoredEventBatch, Int) -> Bool
    ) throws(StorageError) -> Int {
        let channel = ScanChannel(depth: depth)
        let rowsRead = Mutex(0)
        let reader = LoopThread.trySpawn(name: "grona-scan") {
            var size = firstChunkSize
            var batch = StoredEventBatch(reservingRows: size, bytesPerRow: 512)
            var read = 0
            defer { rowsRead.withLock { $0 = read } }
            var ending = ScanChannel.Message.end
            do throws(StorageError) {
                try storage.scanEvents(scan, into: &batch) { batch in
                    read += 1
                    guard batch.count == size || batch.bytes.count >= maxChunkBytes else { return true }
                    var full = batch
                    // Prepared here only while a chunk waits for the caller: the caller is then the slower of
                    // the two threads. When it waits for rows instead, the reader is, and the caller does the
                    // work itself (issue 32: with every visit violating, skimming on the reader always made it
                    // the slower; never, the caller).
                    if channel.queued >= 1 { prepare?(&full) }
                    size = min(size * 2, chunkSize)
                    // The next chunk's buffers sized from this one's, never past the byte cut (a huge row from a
                    // database another program wrote must not multiply into the reservation).
                    let perRow = full.bytes.count / full.count + 64
                    batch = StoredEventBatch(reservingRows: size, bytesPerRow: min(perRow, maxChunkBytes / size + 1))
                    return channel.send(.rows(full))
                }
            } catch {
                ending = .failed(error)
            }
            // The rest of the last chunk, then the end; after a failure too: the rows read before it are the
            // caller's, as when the scan runs on its thread.
            if !batch.isEmpty {
                prepare?(&batch)
                guard channel.send(.rows(batch)) else { return }
            }
            _ = channel.send(ending)
        }
        guard let reader else {
            var read = 0
            var batch = StoredEventBatch()
            try storage.scanEvents(scan, into: &batch) { batch in
                read += 1
                defer { batch.removeAll() }
                return body(batch, batch.count - 1)
            }
            return read
        }
        func finish() -> Int {
            channel.close()
            reader.join()
            return rowsRead.withLock { $0 }
        }
        while true {
            switch channel.receive() {
            case .rows(let batch):
                for index in 0..<batch.count {
                    guard body(batch, index) else { return finish() }
                }
            case .end: return finish()
            case .failed(let error):
                _ = finish()
                throw error
            }
        }
    }
}

/// The bounded hand-over between a scan's reader and its caller: one lock, and a semaphore each way that
/// only ever wakes a waiter (both start at zero, so neither is disposed of while "in use").
private final class ScanChannel: Sendable {
    enum Message: Sendable {
        case rows(StoredEventBatch)
        case end
        case failed(StorageError)
    }

    private struct State {
        var queue: [Message] = []
        var closed = false
    }

    private let depth: Int
    private let state = Mutex(State())
    private let space = DispatchSemaphore(value: 0)
    private let items = DispatchSemaphore(value: 0)

    init(depth: Int) { self.depth = depth }

    /// Queues `message`, waiting while `depth` are queued; false once the caller closed the channel.
    func send(_ message: Message) -> Bool {
        while true {
            let outcome = state.withLock { state -> Bool? in
                if state.closed { return false }
                guard state.queue.count < depth else { return nil }
                state.queue.append(message)
                return true
            }
            guard let sent = outcome else {
                space.wait()
                continue
            }
            if sent { items.signal() }
            return sent
        }
    }

    /// How many messages wait for the caller.
    var queued: Int { state.withLock { $0.queue.count } }

    /// The next message, waiting for one.
    func receive() -> Message {
        while true {
            let message = state.withLock { state -> Message? in
                state.queue.isEmpty ? nil : state.queue.removeFirst()
            }
            if let message {
                space.signal()
                return message
            }
            items.wait()
        }
    }

    /// The caller is done: the reader's next send answers false, and a reader waiting for space wakes.
    func close() {
        state.withLock { $0.closed = true }
        space.signal()
    }
}
