import GronaMockHTTP
import GronaMockPlatform
import GronaMockTLSCore

/// HTTPS for a listener: makes each accepted connection's `TLSTransport` from the current certificate.
///
/// `HTTPServer.Configuration.Listener.layered(port:transport:)` takes it, so the HTTP core serves TLS without
/// knowing of OpenSSL.
package final class TLSListener: ConnectionTransportFactory {
    package let scheme = "https"
    private let certificate: ServingCertificate

    /// Loads the certificate chain and key now (a missing or bad file fails here, before the server starts);
    /// while a server serves the listener, a thread of its own looks at the files again every
    /// `checkInterval`. `beforeReloading` runs on that thread as it starts loading a changed pair: tests hold
    /// a reload there to see connections served meanwhile.
    package init(
        certificateFile: String, keyFile: String, checkInterval: Duration = .seconds(1), logger: Logger = Logger(),
        beforeReloading: (@Sendable () -> Void)? = nil
    ) throws(TLSError) {
        certificate = try ServingCertificate(
            certificateFile: certificateFile, keyFile: keyFile, checkInterval: checkInterval, logger: logger,
            beforeReloading: beforeReloading)
    }

    /// On the accept path: one read of the current context, nothing else (no `stat`, no parsing, no lock
    /// held while either runs).
    package func makeTransport(fd: Int32) -> (any ConnectionTransport)? {
        try? TLSTransport(fd: fd, context: certificate.current())
    }

    package func startServing() { certificate.startWatching() }

    package func stopServing() { certificate.stopWatching() }

    /// Whether the thread that watches the certificate files runs (only while a server serves the listener).
    package var isWatching: Bool { certificate.isWatching }

    /// A client over the connection cap gets a fatal `internal_error` alert (RFC 8446 §6.2: "an internal
    /// error unrelated to the peer"), in a record any TLS version reads before a handshake (§5.1: content
    /// type 21, legacy version 3.3, length 2, level fatal), instead of the plain 503 it would report as
    /// "wrong version number". Making a handshake to say more would spend what the cap is there to save.
    package let refusal: [UInt8] = [21, 3, 3, 0, 2, 2, 80]
}
