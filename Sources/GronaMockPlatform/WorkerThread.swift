import Dispatch

/// A named background thread that sleeps until it is woken or a timeout passes: the event writer, the
/// long-polls, the file watcher and the PostgreSQL grant queue each run on one. Stopping wakes it and waits
/// for it to finish.
package final class WorkerThread: Sendable {
    private let name: String
    private let signal = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<LoopThread?>(nil)

    package init(name: String) {
        self.name = name
    }

    /// Starts `body` on the thread; it should loop on `sleep` until that returns false.
    package func start(_ body: @escaping @Sendable () -> Void) {
        let started = LoopThread.spawn(name: name, body)
        thread.withLock { $0 = started }
    }

    package func wake() { signal.signal() }

    package var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Sleeps until woken, or until `timeout` (nil: no timeout). False once the thread is stopping.
    package func sleep(upTo timeout: Duration?) -> Bool {
        if let timeout {
            _ = signal.wait(timeout: .now() + .nanoseconds(Int(min(timeout.nanoseconds, UInt64(Int.max)))))
        } else {
            signal.wait()
        }
        return !isStopping
    }

    /// Asks the thread to stop, wakes it, and waits until its body returns.
    package func stop() {
        stopping.store(true, ordering: .releasing)
        signal.signal()
        let running = thread.withLock { thread -> LoopThread? in
            defer { thread = nil }
            return thread
        }
        running?.join()
    }
}
