import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockSQLite
import GronaMockTLS

/// A grona-mock engine running inside a test process: what an SDK's tests start, use and stop.
///
/// `start()` listens on 127.0.0.1 with a port the system picks, serves the committed workspaces with the
/// committed test keys (bundled with this library, so it works from any working directory and inside a test
/// bundle), and keeps events in a temporary database removed by `stop()`. Control calls (workspaces,
/// events, faults, clock) are answered in process through the same routes, checks and limits as the HTTP
/// control API, without a socket and without holding a thread while they wait.
public final class GronaMockTestServer: Sendable {
    /// Where the SDK under test should point: `http://127.0.0.1:<port>`.
    public let baseURL: URL
    /// With `Options.tls`: the throwaway CA that signed the mock's certificate (see `makeURLSession`).
    public let certificateAuthority: GronaMockCertificateAuthority?

    private let engine: GronaMock.GronaMockServer
    let temporaryDirectory: URL
    private let lifecycle = Mutex(Lifecycle.running)

    private enum Lifecycle {
        case running
        case stopping([CheckedContinuation<Void, Never>])
        case stopped
    }

    /// What to serve, when not the committed workspaces and keys.
    public struct Options: Sendable {
        /// A directory of `<workspaceKey>.json` files; nil serves the committed `acme-market` and `hostile`.
        public var workspacesDirectory: URL?
        /// A directory of `<kid>.pem` signing keys; nil uses the committed test keys.
        public var keysDirectory: URL?
        /// Keep at most this many events, dropping the oldest; nil keeps them all.
        public var maxEvents: Int?
        /// Serve HTTPS only, with a certificate for 127.0.0.1 and localhost from a CA made for this server
        /// alone; `baseURL` is then `https://127.0.0.1:<port>`.
        public var tls: Bool

        public init(
            workspacesDirectory: URL? = nil, keysDirectory: URL? = nil, maxEvents: Int? = nil, tls: Bool = false
        ) {
            self.workspacesDirectory = workspacesDirectory
            self.keysDirectory = keysDirectory
            self.maxEvents = maxEvents
            self.tls = tls
        }
    }

    private init(
        engine: GronaMock.GronaMockServer, baseURL: URL, temporaryDirectory: URL,
        certificateAuthority: GronaMockCertificateAuthority?
    ) {
        self.engine = engine
        self.baseURL = baseURL
        self.temporaryDirectory = temporaryDirectory
        self.certificateAuthority = certificateAuthority
        certificateAuthority?.register(for: baseURL)
    }

    /// Starts a mock on 127.0.0.1, port 0. Throws `GronaMockTestError` naming what could not be loaded.
    public static func start(_ options: Options = Options()) async throws -> GronaMockTestServer {
        let workspaces = try options.workspacesDirectory ?? BundledFiles.directory("workspaces")
        let keys = try options.keysDirectory ?? BundledFiles.directory("keys")
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
            "grona-mock-test-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        } catch {
            throw GronaMockTestError("cannot create a temporary directory at \(temporary.path): \(error)")
        }
        var http = HTTPServer.Configuration()
        http.host = "127.0.0.1"
        http.port = 0
        var configuration = GronaMockConfiguration(
            http: http, workspacesDirectory: workspaces.path, keysDirectory: keys.path,
            storage: .sqlite(path: temporary.appendingPathComponent("events.sqlite").path),
            maxEvents: options.maxEvents)
        configuration.reloadInterval = .milliseconds(200)
        let authority: GronaMockCertificateAuthority?
        do {
            authority = try options.tls ? GronaMockCertificateAuthority.throwaway(in: temporary) : nil
            if let authority { configuration.http.listeners = [try authority.listener()] }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        do {
            let engine = try GronaMock.GronaMockServer.start(configuration, logger: .silent)
            guard let url = URL(string: engine.url) else {
                engine.shutdown()
                engine.wait()
                throw GronaMockTestError("the server reported an unusable URL \(engine.url)")
            }
            return GronaMockTestServer(
                engine: engine, baseURL: url, temporaryDirectory: temporary, certificateAuthority: authority)
        } catch let error as StartupError {
            try? FileManager.default.removeItem(at: temporary)
            throw GronaMockTestError("grona-mock could not start: \(error)")
        }
    }

    /// Stops serving (requests in flight are answered, stored events committed) and removes the temporary
    /// database. Safe to call more than once and from several tasks: every call returns once it has stopped.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let start = lifecycle.withLock { state -> Bool in
                switch state {
                case .running:
                    state = .stopping([continuation])
                    return true
                case .stopping(let waiting):
                    state = .stopping(waiting + [continuation])
                    return false
                case .stopped:
                    continuation.resume()
                    return false
                }
            }
            guard start else { return }
            // `wait` blocks until the server has stopped, so it runs on a thread of its own, never on the
            // caller's executor.
            Thread.detachNewThread { [self] in
                certificateAuthority?.unregister(for: baseURL)
                engine.shutdown()
                engine.wait()
                try? FileManager.default.removeItem(at: temporaryDirectory)
                let waiting = lifecycle.withLock { state -> [CheckedContinuation<Void, Never>] in
                    defer { state = .stopped }
                    if case .stopping(let waiting) = state { return waiting }
                    return []
                }
                for continuation in waiting { continuation.resume() }
            }
        }
    }

    deinit {
        // A server dropped without stop() must not keep its threads and port for the rest of the run.
        if lifecycle.withLock({ if case .running = $0 { true } else { false } }) {
            certificateAuthority?.unregister(for: baseURL)
            engine.shutdown()
            try? FileManager.default.removeItem(at: temporaryDirectory)
        }
    }

    // MARK: - Workspaces

    /// A workspace served from its file (shared by every test using this server). Throws when `key` is not a
    /// workspace key (`[a-z0-9][a-z0-9-]{0,62}`), before any request.
    public func workspace(_ key: String) throws -> GronaMockWorkspace {
        GronaMockWorkspace(
            key: try GronaMockTestError.checked(key, .workspaceKey, given: "workspace"), secretKey: nil, isClone: false,
            server: self)
    }

    /// A workspace of its own for one test: a clone of `base` under a fresh key, with its own secret key,
    /// events and faults, so tests running in parallel never see each other's. Remove it with
    /// `GronaMockWorkspace.remove()` (or use `withIsolatedWorkspace`).
    ///
    /// `timeToLive` (1 s to 1 day): the server removes the clone and its events by itself once it passes (by
    /// the real clock), so a test process that crashes before `remove()` leaves nothing behind on a shared
    /// server.
    public func isolatedWorkspace(
        cloning base: String = "acme-market", timeToLive: Duration? = nil
    ) async throws -> GronaMockWorkspace {
        try GronaMockTestError.checked(base, .workspaceKey, given: "cloning")
        let key = "t-" + UUID().uuidString.lowercased().prefix(18).replacingOccurrences(of: "-", with: "")
        let ttl = timeToLive.map { Int(max(1, $0.milliseconds / 1000)) }
        let clone = try operate("clone \(base)") {
            try $0.cloneWorkspace(base, as: key, secretKey: nil, ttlSeconds: ttl)
        }
        var workspace = GronaMockWorkspace(key: key, secretKey: clone.secretKey, isClone: true, server: self)
        workspace.origin = (base, ttl.map(Int64.init))
        return workspace
    }

    // MARK: - Clock (one per server: it moves every workspace's time)

    /// Moves the mock's clock (grant windows, schedules, `receivedAt`) by `duration`, frozen or not.
    public func advanceClock(by duration: Duration) async throws {
        _ = try operate("advance the clock") {
            try $0.changeClock(ClockChange(advanceMilliseconds: duration.milliseconds))
        }
    }

    /// Stops the mock's clock at `date`, or at now.
    public func freezeClock(at date: Date? = nil) async throws {
        var change = ClockChange(freeze: true)
        if let date {
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
            guard let at = Int64(exactly: milliseconds) else {
                throw GronaMockTestError("freeze the clock: \(date) is not a time the clock can show")
            }
            change.freezeAt = at
        }
        _ = try operate("freeze the clock") { try $0.changeClock(change) }
    }

    /// Back to the wall clock.
    public func resetClock() async throws {
        _ = try operate("reset the clock") { try $0.changeClock(ClockChange(reset: true)) }
    }

    /// The mock's time now.
    public func now() async throws -> Date {
        let state = try operate("read the clock") { $0.clockState() }
        return Date(timeIntervalSince1970: Double(state.now) / 1000)
    }

    /// Everything back to the files: events, faults, clock and run-time workspace changes of every
    /// workspace. Global: prefer an isolated workspace per test on a shared server.
    public func resetEverything() async throws {
        let _: ResetOutcome = try await operate("reset everything") { engine, done in
            try engine.reset(workspace: nil) { done($0.mapError { $0 }) }
        }
    }

    // MARK: - Engine operations and requests

    /// One engine operation (the control API's, called in process without HTTP); a refusal throws with the
    /// status and code the API would have answered.
    func operate<T>(_ what: String, _ operation: (GronaMockEngine) throws -> T) throws -> T {
        guard case .running = lifecycle.withLock({ $0 }) else {
            throw GronaMockTestError("\(what): the mock has been stopped")
        }
        do {
            return try operation(engine.engine)
        } catch {
            throw Self.testError(error, what)
        }
    }

    /// The same for an operation that answers later, through `done`.
    func operate<T: Sendable>(
        _ what: String,
        _ operation: (GronaMockEngine, @escaping @Sendable (Result<T, any Error>) -> Void) throws -> Void
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            do {
                try operate(what) { engine in
                    try operation(engine) { result in
                        continuation.resume(with: result.mapError { Self.testError($0, what) })
                    }
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    private static func testError(_ error: any Error, _ what: String) -> GronaMockTestError {
        if let error = error as? GronaMockTestError { return error }
        if let error = error as? any HTTPErrorConvertible {
            return GronaMockTestError(error.httpError, operation: what)
        }
        return GronaMockTestError("\(what): \(error)")
    }

    /// One request in process, with its status whatever it is.
    ///
    /// Fault rules never see these requests: a test's own checks (its configuration and grants verified as an
    /// SDK would) must not fire, or use up, the faults meant for the SDK under test.
    func raw(
        _ method: String, _ target: String, body: [UInt8]? = nil, headers: [(String, String)] = []
    ) async throws -> HTTPResponse {
        guard case .running = lifecycle.withLock({ $0 }) else {
            throw GronaMockTestError("\(method) \(target): the mock has been stopped")
        }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: grona-mock\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body {
            head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        }
        let request = head + "\r\n" + String(decoding: body ?? [], as: UTF8.self)
        return await engine.exchange(request, bypassingFaults: true)
    }
}
