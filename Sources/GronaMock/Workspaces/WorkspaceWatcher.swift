import GronaMockPlatform

/// Polls the workspaces and keys directories and reloads what changed, so an edited file is served within
/// two seconds. Polling (every half second) works the same on Linux, macOS and bind mounts in containers,
/// where inotify and FSEvents do not always see changes. Each tick also removes the clones whose time to
/// live has passed.
final class WorkspaceWatcher: Sendable {
    private let worker = WorkerThread(name: "grona-watch")

    init(registry: WorkspaceRegistry, interval: Duration = .milliseconds(500)) {
        worker.start { [worker] in
            while worker.sleep(upTo: interval) {
                registry.reloadChangedFiles()
                registry.expireClones()
            }
        }
    }

    /// Stops polling and waits for the thread.
    func stop() { worker.stop() }
}
