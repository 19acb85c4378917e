import GronaMockHTTP
import GronaMockPlatform

/// HTTPS for a listener: makes each accepted connection's `TLSTransport` from the current certificate.
///
/// `HTTPServer.Configuration.Listener.layered(port:transport:)` takes it, so the HTTP core serves TLS without
/// knowing of OpenSSL.
package final class TLSListener: ConnectionTransportFactory {
    package let scheme = "https"
    private let certificate: ServingCertificate

    /// Loads the certificate chain and key now (a missing or bad file fails here, before the server starts),
    /// then looks at the files again at most every `checkInterval`, as connections arrive.
    package init(
        certificateFile: String, keyFile: String, checkInterval: Duration = .seconds(1), logger: Logger = Logger()
    ) throws(TLSError) {
        certificate = try ServingCertificate(
            certificateFile: certificateFile, keyFile: keyFile, checkInterval: checkInterval, logger: logger)
    }

    package func makeTransport(fd: Int32) -> (any ConnectionTransport)? {
        try? TLSTransport(fd: fd, context: certificate.current())
    }

    /// A client over the connection cap gets a fatal `internal_error` alert (RFC 8446 §6.2: "an internal
    /// error unrelated to the peer"), in a record any TLS version reads before a handshake (§5.1: content
    /// type 21, legacy version 3.3, length 2, level fatal), instead of the plain 503 it would report as
    /// "wrong version number". Making a handshake to say more would spend what the cap is there to save.
    package let refusal: [UInt8] = [21, 3, 3, 0, 2, 2, 80]
}

/// The certificate served to new connections, reloaded when its files change.
///
/// Checked when a connection arrives, at most once per interval (two `stat` calls): only new connections use
/// the certificate, so a check between them would change nothing, and no thread or timer is needed. A change
/// is taken once both files have stayed the same for one more check, so that a rewrite of the pair (`tls init`
/// writes the key, then the certificate) is never caught half-way. A bad new pair keeps the old one serving
/// and logs why; connections already open keep the context they started with (OpenSSL counts references).
final class ServingCertificate: Sendable {
    private struct State {
        var context: ServerTLSContext
        var stamp: String
        /// A stamp seen once and not yet loaded: loaded if the next check sees it again.
        var settling: String?
        var nextCheck: UInt64
    }

    private let certificateFile: String
    private let keyFile: String
    private let interval: Duration
    private let logger: Logger
    private let state: Mutex<State>

    init(certificateFile: String, keyFile: String, checkInterval: Duration, logger: Logger) throws(TLSError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.interval = checkInterval
        self.logger = logger
        let stamp = Self.stamp(certificateFile, keyFile)
        let context = try ServerTLSContext(certificateFile: certificateFile, keyFile: keyFile)
        let next = MonotonicClock.deadline(from: MonotonicClock.now(), after: checkInterval)
        state = Mutex(State(context: context, stamp: stamp, settling: nil, nextCheck: next))
    }

    /// The context for a connection arriving now.
    func current() -> ServerTLSContext {
        let now = MonotonicClock.now()
        return state.withLock { state in
            guard now >= state.nextCheck else { return state.context }
            state.nextCheck = MonotonicClock.deadline(from: now, after: interval)
            let stamp = Self.stamp(certificateFile, keyFile)
            guard stamp != state.stamp else {
                state.settling = nil
                return state.context
            }
            guard stamp == state.settling else {
                state.settling = stamp
                return state.context
            }
            state.stamp = stamp
            state.settling = nil
            do {
                state.context = try ServerTLSContext(certificateFile: certificateFile, keyFile: keyFile)
                logger.info("TLS certificate reloaded", [("certificate", certificateFile)])
            } catch let error as TLSError {
                logger.error(
                    "TLS certificate not reloaded: the previous one is still served",
                    [("certificate", certificateFile), ("key", keyFile), ("reason", error.description)])
            } catch {
                logger.error("TLS certificate not reloaded", [("reason", "\(error)")])
            }
            return state.context
        }
    }

    private static func stamp(_ certificateFile: String, _ keyFile: String) -> String {
        (FileSystem.stamp(certificateFile) ?? "missing") + "|" + (FileSystem.stamp(keyFile) ?? "missing")
    }
}
