import GronaMockCOpenSSL
import GronaMockPlatform
import GronaMockTLSCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's `SSL_CTX` and the small blocking client the tests use. The `SSL` of one connection, its
/// socket BIO and `TLSError` are in GronaMockTLSCore (`TLSSession.swift`), which the load generator's client
/// shares; certificates are made in `LibX509.swift`. Each C object is owned by one Swift class that frees it in
/// `deinit`; no C type leaves the module.

/// The server's TLS settings and certificate: an `SSL_CTX`, immutable once made, so every loop may make
/// connections from it at once (OpenSSL locks its own session cache).
final class ServerTLSContext: @unchecked Sendable {
    let pointer: OpaquePointer

    /// TLS 1.2 suites: ECDHE only (forward secrecy), AEAD only. TLS 1.3's suites are all ECDHE here, since
    /// the groups below are elliptic curves only and PSK resumption without (EC)DHE stays off.
    static let tls12Ciphers =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:"
        + "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305"

    /// The largest certificate chain or key file read: a chain is a few KiB; a huge file is refused rather
    /// than read whole into memory at every change.
    static let maxFileBytes = 256 * 1024

    /// Loads the certificate chain (PEM, the server's first) and its key, and checks that they match.
    ///
    /// The files are read by `FileSystem.read` (regular files only, opened non-blocking, size-capped) and
    /// parsed from memory, never opened by OpenSSL: OpenSSL's `fopen` of a FIFO put in place of the
    /// certificate would block until something wrote to it, at start-up or on the thread that watches for a
    /// reload (`ServingCertificate`), which could then never be stopped.
    init(certificateFile: String, keyFile: String) throws(TLSError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .openSSL("creating the TLS context") }
        pointer = context
        guard SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil) == 1,
            SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_3_VERSION), nil) == 1,
            SSL_CTX_set_cipher_list(context, Self.tls12Ciphers) == 1,
            withMutableCString("X25519:P-256:P-384", { SSL_CTX_ctrl(context, SSL_CTRL_SET_GROUPS_LIST, 0, $0) }) == 1
        else { throw .openSSL("configuring TLS") }
        SSL_CTX_set_options(context, grona_ssl_server_options())
        // Partial writes and a moving buffer: the connection retries a blocked write from its queue, gathered
        // anew. Buffers released while idle: a keep-alive connection holds no 34 KiB of TLS buffers.
        let mode = SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS
        SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(mode), nil)
        // One recv per record rather than two (header, then body); what is read ahead is announced by
        // `hasBufferedInput`, since no readiness event will.
        SSL_CTX_ctrl(context, SSL_CTRL_SET_READ_AHEAD, 1, nil)
        SSL_CTX_set_alpn_select_cb(context, selectHTTP11, nil)
        // Resumption by session tickets only (RFC 8446 §4.6.1, RFC 5077): no server-side store that grows with
        // every full handshake and is locked by every loop, as nginx's default `ssl_session_cache none`.
        SSL_CTX_ctrl(
            context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_SERVER | SSL_SESS_CACHE_NO_INTERNAL_STORE), nil)
        let sessionContext: [UInt8] = Array("grona-mock".utf8)
        SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
        let chain = try LibX509.certificateChain(
            pem: try Self.read(certificateFile, "the certificate"), from: certificateFile)
        let key = try LibX509.key(pem: try Self.read(keyFile, "the private key"), from: keyFile)
        guard let leaf = chain.first, SSL_CTX_use_certificate(context, leaf.pointer) == 1 else {
            throw .openSSL("using the certificate \(certificateFile)")
        }
        for intermediate in chain.dropFirst() {
            // SSL_CTX_add1_chain_cert: the context takes its own reference.
            guard SSL_CTX_ctrl(context, SSL_CTRL_CHAIN_CERT, 1, UnsafeMutableRawPointer(intermediate.pointer)) == 1
            else { throw .openSSL("using the certificate chain of \(certificateFile)") }
        }
        // This checks that the key is the certificate's too ("key values mismatch" when not).
        guard SSL_CTX_use_PrivateKey(context, key.pointer) == 1 else {
            throw .openSSL("using the private key \(keyFile) with the certificate \(certificateFile)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw .openSSL("matching the key \(keyFile) to the certificate \(certificateFile)")
        }
    }

    deinit { SSL_CTX_free(pointer) }

    private static func read(_ path: String, _ what: String) throws(TLSError) -> [UInt8] {
        do {
            return try FileSystem.read(path, maxBytes: maxFileBytes)
        } catch {
            throw TLSError("reading \(what) \(path) failed: \(error.description)")
        }
    }
}

/// ALPN (RFC 7301): `http/1.1` when the client offers it. A client that offers only others (h2 alone) gets the
/// fatal `no_application_protocol` alert, as §3.2 requires, and so a clear reason at its handshake rather than
/// an HTTP/1.1 error to its own protocol's preface. A client that offers none is not asked (no callback).
private func selectHTTP11(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?, _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32,
    _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let offered, let out, let outLength else { return SSL_TLSEXT_ERR_NOACK }
    let http11 = Array("http/1.1".utf8)
    var index = 0
    let total = Int(offeredLength)
    while index < total {
        let length = Int(offered[index])
        let start = index + 1
        guard start + length <= total else { break }
        if length == http11.count && (0..<length).allSatisfy({ offered[start + $0] == http11[$0] }) {
            out.pointee = offered + start
            outLength.pointee = 8
            return SSL_TLSEXT_ERR_OK
        }
        index = start + length
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL
}

/// A client `SSL_CTX` that trusts one CA file, for tests and tools: TLS 1.2 and up, peers verified.
package final class ClientTLSContext: @unchecked Sendable {
    let pointer: OpaquePointer

    /// `versions` narrows the protocol (`TLS1_2_VERSION`...), `ciphers` the TLS 1.2 suites, to check what
    /// the server refuses.
    package init(caFile: String?, alpn: [String] = ["http/1.1"], tls12Ciphers: String? = nil, onlyTLS12: Bool = false)
        throws(TLSError)
    {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .openSSL("creating a client context") }
        pointer = context
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw .openSSL("reading the CA file \(caFile)")
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        }
        if onlyTLS12 { SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_2_VERSION), nil) }
        if let tls12Ciphers, SSL_CTX_set_cipher_list(context, tls12Ciphers) != 1 {
            throw .openSSL("setting the ciphers \(tls12Ciphers)")
        }
        let wire = alpn.flatMap { [UInt8(clamping: $0.utf8.count)] + Array($0.utf8) }
        if !wire.isEmpty { SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) }
    }

    deinit { SSL_CTX_free(pointer) }

    /// A client session on the connected, blocking socket `fd`, its handshake done.
    package func connect(fd: Int32, host: String) throws(TLSError) -> TLSClientSession {
        let session = try TLSSession(context: pointer, fd: fd, server: false)
        try session.expectHost(host)
        switch session.handshake() {
        case .done: return TLSClientSession(session)
        case .failed(let reason): throw TLSError("handshake: \(reason)")
        case .closed: throw TLSError("handshake: the server closed the connection")
        case .wantRead, .wantWrite: throw TLSError("handshake: timed out")
        }
    }
}

/// A client's view of one TLS connection on a blocking socket.
package final class TLSClientSession {
    private let session: TLSSession

    fileprivate init(_ session: TLSSession) { self.session = session }

    package var version: String { session.version }
    package var alpn: String? { session.alpn }
    package var peerSerial: String? { session.peerSerial }

    package func write(_ bytes: [UInt8]) throws(TLSError) {
        var offset = 0
        while offset < bytes.count {
            let outcome = bytes[offset...].withUnsafeBytes { session.write($0) }
            guard case .done(let count) = outcome else { throw TLSError("write: \(outcome)") }
            offset += count
        }
    }

    /// Up to `buffer.count` bytes; 0 at the end of the stream; throws on a timeout or error.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int {
        switch session.read(into: buffer) {
        case .done(let count): return count
        case .closed: return 0
        case .wantRead, .wantWrite: throw TLSError("read: timed out")
        case .failed(let reason): throw TLSError("read: \(reason)")
        }
    }

    package func closeNotify() { session.sendCloseNotify() }
}
