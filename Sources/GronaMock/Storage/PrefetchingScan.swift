import Dispatch
import GronaMockPlatform

/// `GronaStorage.scanEvents` read ahead on a thread of its own, so that reading the rows (the database's
/// stepping, the rows' strings) and checking them overlap on two cores instead of taking turns: the
/// violations check spends about as long on each.
///
/// Memory stays bounded: at most `depth` chunks of `chunkSize` rows wait between the reader and the caller.
/// When the caller stops early (a page filled), the reader stops at its next chunk; when the reader fails,
/// the caller sees its error once the rows before it are handed over. If no thread can be made, the scan
/// runs on the caller's thread as before.
///
/// What the reader reads past the caller's stop is wasted: at most `maxReadAhead` rows a scan. With every visit
/// violating, a page of 1,000 violations ends after some 2,300 events, and the earlier 4 chunks of 512 (2,560
/// rows read past it) made each page read twice what it used (issue 32). The reader is faster than the check,
/// so the queue stays full: one chunk of 128 queued and one being filled hold the two threads' overlap at a
/// few thousand wake-ups per million rows. The first chunks are smaller (`firstChunkSize`, doubling), so a
/// page that stops after a few rows (a small `limit`) reads few past it.
enum PrefetchingScan {
    static let chunkSize = 128
    static let firstChunkSize = 16
    static let depth = 1
    /// The chunks queued, the one the reader fills while it waits for room, and the rest of the one the caller
    /// stopped in: what a scan may read and never hand over.
    static let maxReadAhead = (depth + 2) * chunkSize

    /// Hands `body` the rows of `scan` until it answers false; returns how many rows the storage read, those
    /// read ahead and never handed over included (the work done, which tests bound).
    @discardableResult
    static func run(
        _ storage: any GronaStorage, _ scan: EventScan, _ body: (StoredEventColumns) -> Bool
    ) throws(StorageError) -> Int {
        let channel = ScanChannel(depth: depth)
        let rowsRead = Mutex(0)
        let reader = LoopThread.trySpawn(name: "grona-scan") {
            var chunk: [StoredEventColumns] = []
            chunk.reserveCapacity(chunkSize)
            var size = firstChunkSize
            var read = 0
            defer { rowsRead.withLock { $0 = read } }
            do throws(StorageError) {
                try storage.scanEvents(scan) { row in
                    read += 1
                    chunk.append(row)
                    guard chunk.count == size else { return true }
                    defer {
                        chunk.removeAll(keepingCapacity: true)
                        size = min(size * 2, chunkSize)
                    }
                    return channel.send(.rows(chunk))
                }
                if !chunk.isEmpty, !channel.send(.rows(chunk)) { return }
                _ = channel.send(.end)
            } catch {
                _ = channel.send(.failed(error))
            }
        }
        guard let reader else {
            var read = 0
            try storage.scanEvents(scan) { row in
                read += 1
                return body(row)
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
            case .rows(let rows):
                for row in rows {
                    guard body(row) else { return finish() }
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
        case rows([StoredEventColumns])
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
