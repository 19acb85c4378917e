import Dispatch
import GronaMockHTTP
import GronaMockJSON

/// A named background thread that sleeps until it is woken or a timeout passes: the event writer, the
/// long-polls and the file watcher each run on one. Stopping wakes it and waits for it to finish.
final class WorkerThread: Sendable {
    private let name: String
    private let signal = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<LoopThread?>(nil)

    init(name: String) {
        self.name = name
    }

    /// Starts `body` on the thread; it should loop on `sleep` until that returns false.
    func start(_ body: @escaping @Sendable () -> Void) {
        let started = LoopThread.spawn(name: name, body)
        thread.withLock { $0 = started }
    }

    func wake() { signal.signal() }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Sleeps until woken, or until `timeout` (nil: no timeout). False once the thread is stopping.
    func sleep(upTo timeout: Duration?) -> Bool {
        if let timeout {
            _ = signal.wait(timeout: .now() + .nanoseconds(Int(min(timeout.nanoseconds, UInt64(Int.max)))))
        } else {
            signal.wait()
        }
        return !isStopping
    }

    /// Asks the thread to stop, wakes it, and waits until its body returns.
    func stop() {
        stopping.store(true, ordering: .releasing)
        signal.signal()
        let running = thread.withLock { thread -> LoopThread? in
            defer { thread = nil }
            return thread
        }
        running?.join()
    }
}
