import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Polls the workspaces and keys directories and reloads what changed, so an edited file is served within
/// two seconds. Polling (every half second) works the same on Linux, macOS and bind mounts in containers,
/// where inotify and FSEvents do not always see changes.
final class WorkspaceWatcher: Sendable {
    private final class StopFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private let stopped = StopFlag()
    private let thread: Mutex<LoopThread?> = Mutex(nil)

    init(registry: WorkspaceRegistry, interval: Duration = .milliseconds(500)) {
        let stopped = self.stopped
        let sleepMicroseconds = UInt32(max(10_000, interval.nanoseconds / 1000))
        let thread = LoopThread.spawn(name: "grona-watch") {
            while !stopped.value.load(ordering: .acquiring) {
                usleep(sleepMicroseconds)
                if stopped.value.load(ordering: .acquiring) { break }
                registry.reloadChangedFiles()
            }
        }
        self.thread.withLock { $0 = thread }
    }

    /// Stops polling and waits for the thread.
    func stop() {
        stopped.value.store(true, ordering: .releasing)
        let thread = self.thread.withLock { thread -> LoopThread? in
            defer { thread = nil }
            return thread
        }
        thread?.join()
    }
}
