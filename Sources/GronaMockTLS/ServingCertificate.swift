import GronaMockPlatform
import GronaMockTLSCore

/// The certificate served to new connections, reloaded off the event loops when its files change.
///
/// The accept path only reads the current context (`current`); a thread of its own, running while a server
/// serves the listener, looks at the files every interval (two `stat` calls) and, when they changed and
/// settled (`CertificateCheck`), parses the new pair and swaps it in whole. A slow disk, a large chain or a
/// slow parse therefore never holds a loop or a connection waiting for its handshake. A bad new pair keeps
/// the old one serving and logs why; connections already open keep the context they started with (OpenSSL
/// counts references).
final class ServingCertificate: Sendable {
    private let certificateFile: String
    private let keyFile: String
    private let interval: Duration
    private let logger: Logger
    private let beforeReloading: (@Sendable () -> Void)?
    private let context: Mutex<ServerTLSContext>
    /// Read and changed by the watching thread only; behind a lock so that a server started again with the same
    /// listener goes on from what was loaded.
    private let check: Mutex<CertificateCheck>
    /// The watching thread while a server serves the listener; nil before and after.
    private let watcher = Mutex<WorkerThread?>(nil)

    init(
        certificateFile: String, keyFile: String, checkInterval: Duration, logger: Logger,
        beforeReloading: (@Sendable () -> Void)?
    ) throws(TLSError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.interval = checkInterval
        self.logger = logger
        self.beforeReloading = beforeReloading
        // Stamped before loading: a change made while the pair loads is seen by the first check.
        check = Mutex(CertificateCheck(loaded: Self.stamp(certificateFile, keyFile)))
        context = Mutex(try ServerTLSContext(certificateFile: certificateFile, keyFile: keyFile))
    }

    /// The context for a connection arriving now: a reference read under a lock that is never held longer.
    func current() -> ServerTLSContext {
        context.withLock { $0 }
    }

    /// Starts the watching thread, unless it runs.
    func startWatching() {
        watcher.withLock { watcher in
            guard watcher == nil else { return }
            let worker = WorkerThread(name: "grona-tls-watch")
            worker.start { [worker, self] in
                while worker.sleep(upTo: interval) { reloadIfChanged() }
            }
            watcher = worker
        }
    }

    /// Stops the watching thread and waits for it (a reload under way finishes first).
    func stopWatching() {
        let running = watcher.withLock { watcher -> WorkerThread? in
            defer { watcher = nil }
            return watcher
        }
        running?.stop()
    }

    var isWatching: Bool { watcher.withLock { $0 != nil } }

    /// One check, on the watching thread.
    private func reloadIfChanged() {
        let stamp = Self.stamp(certificateFile, keyFile)
        guard check.withLock({ $0.observe(stamp) }) == .load else { return }
        beforeReloading?()
        do throws(TLSError) {
            let fresh = try ServerTLSContext(certificateFile: certificateFile, keyFile: keyFile)
            context.withLock { $0 = fresh }
            logger.info("TLS certificate reloaded", [("certificate", certificateFile)])
        } catch {
            // The paths and OpenSSL's reason only: never the files' contents.
            logger.error(
                "TLS certificate not reloaded: the previous one is still served",
                [("certificate", certificateFile), ("key", keyFile), ("reason", error.description)])
        }
    }

    private static func stamp(_ certificateFile: String, _ keyFile: String) -> String {
        (FileSystem.stamp(certificateFile) ?? "missing") + "|" + (FileSystem.stamp(keyFile) ?? "missing")
    }
}

/// When a changed pair of files is taken: once both have stayed the same for one more check, so that a
/// rewrite of the pair (`tls init` writes the key, then the certificate) is never caught half-way. A pair is
/// tried once: a bad one is not parsed again at every check, only when the files change again.
struct CertificateCheck: Equatable {
    enum Action: Equatable {
        case keep
        case load
    }

    /// The stamp of the files last loaded, or last tried.
    private(set) var loaded: String
    /// A new stamp seen once and not yet loaded: loaded if the next check sees it again.
    private(set) var settling: String?

    init(loaded: String) {
        self.loaded = loaded
    }

    /// The files' stamp now; `.load` when the caller should load them now.
    mutating func observe(_ stamp: String) -> Action {
        guard stamp != loaded else {
            settling = nil
            return .keep
        }
        guard stamp == settling else {
            settling = stamp
            return .keep
        }
        loaded = stamp
        settling = nil
        return .load
    }
}
