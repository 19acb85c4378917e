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
enum PrefetchingScan {
    static let chunkSize = 512
    static let depth = 4

    static func run(
        _ storage: any GronaStorage, _ scan: EventScan, _ body: (StoredEventColumns) -> Bool
    ) throws(StorageError) {
        let channel = ScanChannel(depth: depth)
        let reader = LoopThread.trySpawn(name: "grona-scan") {
            var chunk: [StoredEventColumns] = []
            chunk.reserveCapacity(chunkSize)
            do throws(StorageError) {
                try storage.scanEvents(scan) { row in
                    chunk.append(row)
                    guard chunk.count == chunkSize else { return true }
                    defer { chunk.removeAll(keepingCapacity: true) }
                    return channel.send(.rows(chunk))
                }
                if !chunk.isEmpty, !channel.send(.rows(chunk)) { return }
                _ = channel.send(.end)
            } catch {
                _ = channel.send(.failed(error))
            }
        }
        guard let reader else { return try storage.scanEvents(scan, body) }
        defer {
            channel.close()
            reader.join()
        }
        while true {
            switch channel.receive() {
            case .rows(let rows):
                for row in rows {
                    guard body(row) else { return }
                }
            case .end: return
            case .failed(let error): throw error
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
