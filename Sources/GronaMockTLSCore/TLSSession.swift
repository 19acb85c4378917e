import GronaMockCOpenSSL
import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `SSL` on a non-blocking socket, for either side: the server's `TLSTransport` (GronaMockTLS) and the
/// load generator's client connections (`TLSClientContext`). The BIO under it sends with `MSG_NOSIGNAL`. The C
/// object is owned by the Swift class that frees it in `deinit`.

/// What one non-blocking TLS operation did.
package enum TLSOutcome {
    case done(Int)
    case wantRead
    case wantWrite
    /// The peer ended the TLS stream (close_notify, or a TCP close: `SSL_OP_IGNORE_UNEXPECTED_EOF`).
    case closed
    /// A protocol error or a socket error: the connection is unusable, and must not be shut down cleanly.
    case failed(String)
}

/// One `SSL`, over a socket through `SocketBIO`. Confined to one thread (a connection's event loop, or a test).
package final class TLSSession {
    let ssl: OpaquePointer

    package init(context: OpaquePointer, fd: Int32, server: Bool) throws(TLSError) {
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

    package func handshake() -> TLSOutcome {
        ERR_clear_error()
        return outcome(SSL_do_handshake(ssl))
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSOutcome {
        ERR_clear_error()
        return outcome(SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count)))
    }

    package func write(_ bytes: UnsafeRawBufferPointer) -> TLSOutcome {
        ERR_clear_error()
        return outcome(SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count)))
    }

    /// Decrypted or read-ahead bytes that `read` can return without the socket.
    package var hasPending: Bool { SSL_has_pending(ssl) == 1 }

    /// Sends close_notify once, without waiting for the peer's (RFC 8446 §6.1); best effort.
    package func sendCloseNotify() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// The negotiated version (`TLSv1.3`), ALPN protocol, and the peer certificate's serial in hex.
    package var version: String { String(cString: SSL_get_version(ssl)) }

    package var alpn: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    package var peerSerial: String? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        return CertificateText.serialHex(certificate)
    }

    /// Sets SNI and the name the peer certificate must carry (RFC 6125), for a client.
    package func expectHost(_ host: String) throws(TLSError) {
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

/// `text` as the `void *` that OpenSSL's ctrl calls take (they only read it).
package func withMutableCString(_ text: String, _ body: (UnsafeMutableRawPointer?) -> Int) -> Int {
    var bytes = Array(text.utf8CString)
    return bytes.withUnsafeMutableBytes { body($0.baseAddress) }
}
