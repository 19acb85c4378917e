import GronaMockPlatform

/// The connections behind `PostgresStorage`: one writing connection (the event writer, revisions, upkeep), a
/// second one for the half of a large group written beside the other half, and a few reading ones, each opened
/// on first use and opened again after it broke, with a growing pause between attempts so that a server that is
/// down is not hammered and a caller is not held up.
///
/// `@unchecked Sendable` is sound because a connection is used only by the thread holding its slot's lock;
/// the one thing another thread does is `PostgresCanceller.cancel`, which libpq allows.
final class PostgresPool: @unchecked Sendable {
    let url: PostgresURL
    private let writer: Slot
    /// The second writing connection, opened on the first group written side by side (`PostgresStorage.commit`).
    private let sideWriter: Slot
    private let readers: [Slot]
    private let nextReader = Atomic<Int>(0)
    private let readsStopped = Atomic<Bool>(false)

    init(url: PostgresURL, readers count: Int) {
        self.url = url
        writer = Slot(url)
        sideWriter = Slot(url)
        readers = (0..<max(1, count)).map { _ in Slot(url) }
    }

    /// Runs `body` on the writing connection, holding it.
    func withWriter<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
        try writer.run(body)
    }

    /// Runs `body` on the second writing connection, holding it: the half of a group written side by side.
    func withSideWriter<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
        try sideWriter.run(body)
    }

    /// Runs a query on a free reading connection; when every reader is busy, it waits for one, taken in turn.
    func withReader<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
        guard !readsStopped.load(ordering: .acquiring) else {
            throw PostgresError(sqlState: "57P01", message: "the server is shutting down", connectionLost: false)
        }
        let start = nextReader.add(1, ordering: .relaxed).newValue
        let index = { (offset: Int) in ((start &+ offset) & Int.max) % self.readers.count }
        for offset in 0..<readers.count {
            if let outcome = readers[index(offset)].runIfFree(body) { return try outcome.get() }
        }
        return try readers[index(0)].run(body)
    }

    /// At shutdown: cancels the reads running now and refuses later ones. Writes are never interrupted.
    func interruptReads() {
        readsStopped.store(true, ordering: .releasing)
        for reader in readers { reader.cancelRunningQuery() }
    }
}

/// One connection, its lock, and when it may next be opened.
private final class Slot: @unchecked Sendable {
    private let url: PostgresURL
    /// Held while the connection is used, opened or replaced; guards `connection` and `retry`.
    private let lock = Mutex(())
    private var connection: PostgresConnection?
    private var retry = Backoff()
    /// Guarded apart from `lock`, which a running query holds: so that another thread can cancel it.
    private let canceller = Mutex<PostgresCanceller?>(nil)
    private let busy = Atomic<Bool>(false)

    init(_ url: PostgresURL) { self.url = url }

    /// Runs `body` holding the connection, waiting for it.
    func run<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
        var outcome: Result<T, PostgresError>?
        lock.withLock { _ in outcome = Result { () throws(PostgresError) in try use(body) } }
        return try (outcome ?? .failure(PostgresError(sqlState: nil, message: "no result", connectionLost: false)))
            .get()
    }

    /// Runs `body` if no one holds the connection now; nil when someone does.
    func runIfFree<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) -> Result<T, PostgresError>? {
        var outcome: Result<T, PostgresError>?
        _ = lock.withLockIfAvailable { _ in outcome = Result { () throws(PostgresError) in try use(body) } }
        return outcome
    }

    func cancelRunningQuery() {
        guard busy.load(ordering: .acquiring) else { return }
        canceller.withLock { $0?.cancel() }
    }

    /// With the lock held: the open connection (opening it when it is time), then `body`; a connection
    /// that broke is dropped, to be opened again on a later call.
    private func use<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
        let connection = try open()
        busy.store(true, ordering: .releasing)
        defer { busy.store(false, ordering: .releasing) }
        do {
            return try body(connection)
        } catch {
            if connection.isBroken { close() }
            throw error.redacting(url.secrets)
        }
    }

    private func open() throws(PostgresError) -> PostgresConnection {
        if let connection, !connection.isBroken { return connection }
        close()
        let now = ContinuousClock.now
        if let refusal = retry.refusal(at: now) { throw refusal }
        do {
            let opened = try PostgresConnection(parameters: url.connectionParameters)
            let cancel = opened.makeCanceller()
            canceller.withLock { $0 = cancel }
            connection = opened
            retry = Backoff()
            return opened
        } catch {
            let redacted = error.redacting(url.secrets)
            retry.failed(at: now, redacted)
            throw redacted
        }
    }

    private func close() {
        canceller.withLock { $0 = nil }
        connection = nil
    }
}

/// When a connection that failed to open may be tried again: at once the first time, then after a pause
/// that doubles up to `longest`, so a server that is down costs one attempt per pause and not one per call.
private struct Backoff {
    static let first: Duration = .milliseconds(100)
    static let longest: Duration = .seconds(2)

    private var pause: Duration = .zero
    private var notBefore: ContinuousClock.Instant?
    private var lastError: PostgresError?

    /// The error to answer with while it is not yet time to try again; nil when it is.
    func refusal(at now: ContinuousClock.Instant) -> PostgresError? {
        guard let notBefore, now < notBefore, let lastError else { return nil }
        return lastError
    }

    mutating func failed(at now: ContinuousClock.Instant, _ error: PostgresError) {
        pause = pause == .zero ? Self.first : min(pause * 2, Self.longest)
        notBefore = now + pause
        lastError = error
    }
}
