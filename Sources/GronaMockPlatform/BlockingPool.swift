import Dispatch

/// A few threads for work that may block (SQLite reads and scans, signing a new revision, file I/O), so
/// that an event loop never waits on it and health stays answerable during a long scan.
///
/// Fixed size: a burst of slow control requests queues here instead of growing threads without bound, as
/// Dispatch's global queue would. Jobs run in arrival order.
public final class BlockingPool: Sendable {
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let available = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let threads = Mutex<[LoopThread]>([])

    public init(threads count: Int, name: String = "grona-pool") {
        let started = (0..<max(1, count)).map { index in
            LoopThread.spawn(name: "\(name)-\(index)") { [self] in run() }
        }
        threads.withLock { $0 = started }
    }

    /// Runs `job` on one of the pool's threads, soon.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    /// Runs what is queued, then stops the threads and waits for them.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let running = threads.withLock { threads -> [LoopThread] in
            defer { threads = [] }
            return threads
        }
        for _ in running { available.signal() }
        for thread in running { thread.join() }
    }

    private func run() {
        while true {
            available.wait()
            let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let job {
                job()
            } else if stopping.load(ordering: .acquiring) {
                return
            }
        }
    }
}
