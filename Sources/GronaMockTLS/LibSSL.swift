import GronaMockCOpenSSL
import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every call into libssl lives in this file: the server's `SSL_CTX`, one `SSL` per connection on its
/// non-blocking socket, and the small blocking client the tests use. Certificates are made in `LibX509.swift`.
/// Each C object is owned by one Swift class that frees it in `deinit`; no C type leaves the module.

/// A failed libssl or libcrypto operation, with OpenSSL's first reason. Never carries key material.
package struct TLSError: Error, Sendable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }

    /// A blocking client's read or handshake that gave up at its socket's timeout.
    package var isTimeout: Bool { description.hasSuffix("timed out") }

    /// What OpenSSL queued for `operation`, taking its whole queue so that one failure is never reported
    /// against the next call.
    static func openSSL(_ operation: String) -> TLSError {
        var first: String?
        while case let code = ERR_get_error(), code != 0 {
            guard first == nil else { continue }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            first = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return TLSError(first.map { "\(operation) failed: \($0)" } ?? "\(operation) failed")
    }
}

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

/// `text` as the `void *` that OpenSSL's ctrl calls take (they only read it).
private func withMutableCString(_ text: String, _ body: (UnsafeMutableRawPointer?) -> Int) -> Int {
    var bytes = Array(text.utf8CString)
    return bytes.withUnsafeMutableBytes { body($0.baseAddress) }
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

/// What one non-blocking TLS operation did.
enum TLSOutcome {
    case done(Int)
    case wantRead
    case wantWrite
    /// The peer ended the TLS stream (close_notify, or a TCP close: `SSL_OP_IGNORE_UNEXPECTED_EOF`).
    case closed
    /// A protocol error or a socket error: the connection is unusable, and must not be shut down cleanly.
    case failed(String)
}

/// One `SSL`, over a socket through `SocketBIO`. Confined to one thread (a connection's event loop, or a test).
final class TLSSession {
    private let ssl: OpaquePointer

    init(context: OpaquePointer, fd: Int32, server: Bool) throws(TLSError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context) else { throw .openSSL("creating a TLS session") }
        guard let bio = SocketBIO.make(fd: fd) else {
            SSL_free(ssl)
            throw .openSSL("creating the socket BIO")
        }
        SSL_set_bio(ssl, bio, bio)
        if server { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
        self.ssl = ssl
    }

    deinit { SSL_free(ssl) }

    // Each operation clears OpenSSL's error queue first, as `SSL_get_error` requires.

    func handshake() -> TLSOutcome {
        ERR_clear_error()
        return outcome(SSL_do_handshake(ssl))
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSOutcome {
        ERR_clear_error()
        return outcome(SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count)))
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> TLSOutcome {
        ERR_clear_error()
        return outcome(SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count)))
    }

    /// Decrypted or read-ahead bytes that `read` can return without the socket.
    var hasPending: Bool { SSL_has_pending(ssl) == 1 }

    /// Sends close_notify once, without waiting for the peer's (RFC 8446 §6.1); best effort.
    func sendCloseNotify() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// The negotiated version (`TLSv1.3`), ALPN protocol, and the peer certificate's serial in hex.
    var version: String { String(cString: SSL_get_version(ssl)) }

    var alpn: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    var peerSerial: String? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        return CertificateText.serialHex(certificate)
    }

    /// Sets SNI and the name the peer certificate must carry (RFC 6125), for a client.
    func expectHost(_ host: String) throws(TLSError) {
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        if !isAddress {
            _ = withMutableCString(host) {
                SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), $0)
            }
        }
        let set = isAddress ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) : SSL_set1_host(ssl, host)
        guard set == 1 else { throw .openSSL("expecting the host \(host)") }
    }

    private func outcome(_ result: Int32) -> TLSOutcome {
        if result > 0 { return .done(Int(result)) }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_NONE: return .done(0)
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
            return .failed("socket error \(Socket.lastErrno())")
        default: return .failed(TLSError.openSSL("TLS").description)
        }
    }
}

/// A BIO over a socket that sends with `MSG_NOSIGNAL`: OpenSSL's own socket BIO uses `write(2)`, which would
/// kill a test process (an SDK's, running the test kit) with SIGPIPE when a client goes away.
private enum SocketBIO {
    nonisolated(unsafe) static let method: OpaquePointer? = {
        guard
            let method = BIO_meth_new(
                BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR,
                "grona-mock socket")
        else { return nil }
        BIO_meth_set_write(method) { bio, data, length in
            let fd = SocketBIO.fd(of: bio)
            #if canImport(Glibc)
            let sent = send(fd, data, Int(length), Int32(MSG_NOSIGNAL))
            #else
            let sent = send(fd, data, Int(length), 0)
            #endif
            return SocketBIO.settle(bio, sent, retry: BIO_FLAGS_WRITE)
        }
        BIO_meth_set_read(method) { bio, data, length in
            SocketBIO.settle(bio, recv(SocketBIO.fd(of: bio), data, Int(length), 0), retry: BIO_FLAGS_READ)
        }
        BIO_meth_set_ctrl(method) { _, command, _, _ in command == BIO_CTRL_FLUSH ? 1 : 0 }
        BIO_meth_set_create(method) { bio in
            BIO_set_init(bio, 1)
            return 1
        }
        return method
    }()

    static func make(fd: Int32) -> OpaquePointer? {
        guard let method, let bio = BIO_new(method) else { return nil }
        // The descriptor, offset by one so that 0 is not a null pointer.
        BIO_set_data(bio, UnsafeMutableRawPointer(bitPattern: Int(fd) + 1))
        return bio
    }

    static func fd(of bio: OpaquePointer?) -> Int32 {
        Int32(truncatingIfNeeded: Int(bitPattern: BIO_get_data(bio)) - 1)
    }

    /// A result for OpenSSL: a would-block sets the retry flags it reads as WANT_READ / WANT_WRITE.
    static func settle(_ bio: OpaquePointer?, _ result: Int, retry: Int32) -> Int32 {
        BIO_clear_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY)
        if result < 0 {
            let error = Socket.lastErrno()
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR {
                BIO_set_flags(bio, retry | BIO_FLAGS_SHOULD_RETRY)
            }
            return -1
        }
        return Int32(clamping: result)
    }
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
