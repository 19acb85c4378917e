import GronaMockCOpenSSL
import GronaMockPlatform

/// Why a CA file given to a client (`grona-mock load --cacert FILE`) cannot be used. `code` is stable (scripts
/// may match it); the message names the file and never echoes its content.
package struct CAFileError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// Missing, not a regular file, unreadable, or over `TLSClientContext.maxCAFileBytes`.
        case unreadable = "cacert_unreadable"
        /// Read, but holds no PEM certificate OpenSSL accepts.
        case invalid = "cacert_invalid"
    }

    package let code: Code
    package let message: String

    package var description: String { "\(message) [\(code.rawValue)]" }
}

/// The client side of HTTPS for the load generator: an `SSL_CTX` for TLS 1.2 and 1.3 that verifies the server's
/// chain (RFC 5280) against the system trust store, or against the CA certificates of one PEM file instead (as
/// curl's `--cacert`), and the server's name (RFC 6125 through `SSL_set1_host`) on every connection. ALPN offers
/// `http/1.1` (RFC 7301), the one protocol the client speaks. Immutable once made: every connection of a run
/// makes its session from it.
package final class TLSClientContext: @unchecked Sendable {
    let pointer: OpaquePointer

    /// A CA bundle is a few hundred KiB at most (the whole Mozilla store is about 220 KiB).
    package static let maxCAFileBytes = 1024 * 1024

    /// `caFile` nil: the system's default verify paths (`SSL_CTX_set_default_verify_paths`: OpenSSL's
    /// directory, or `SSL_CERT_FILE` / `SSL_CERT_DIR`). Otherwise that file's certificates alone; it is read by
    /// `FileSystem.read` (regular files only, size-capped) and parsed from memory.
    ///
    /// `versions` narrows what is offered to one version, for the tests that run a load over each.
    package init(caFile: String?, versions: ProtocolVersions = .tls12And13) throws(CAFileError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw CAFileError(code: .invalid, message: TLSError.openSSL("creating a TLS client context").description)
        }
        pointer = context
        let range = versions.range
        SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(range.lowerBound), nil)
        SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(range.upperBound), nil)
        // A blocked write is offered again from the request's first unsent byte, whose address may move.
        SSL_CTX_ctrl(
            context, SSL_CTRL_MODE, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let alpn: [UInt8] = [8] + Array("http/1.1".utf8)
        SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count))
        if let caFile {
            try Self.trust(caFile, in: context)
        } else {
            SSL_CTX_set_default_verify_paths(context)
            ERR_clear_error()
        }
    }

    deinit { SSL_CTX_free(pointer) }

    /// The TLS versions a client offers: TLS 1.2 (RFC 5246) and 1.3 (RFC 8446), or one of them alone.
    package enum ProtocolVersions: Sendable {
        case tls12And13, onlyTLS12, onlyTLS13

        var range: ClosedRange<Int32> {
            switch self {
            case .tls12And13: Int32(TLS1_2_VERSION)...Int32(TLS1_3_VERSION)
            case .onlyTLS12: Int32(TLS1_2_VERSION)...Int32(TLS1_2_VERSION)
            case .onlyTLS13: Int32(TLS1_3_VERSION)...Int32(TLS1_3_VERSION)
            }
        }
    }

    /// A session on the connecting socket `fd`, with SNI and the expected name set for `host`.
    package func session(fd: Int32, host: String) throws(TLSError) -> TLSClientConnection {
        let session = try TLSSession(context: pointer, fd: fd, server: false)
        try session.expectHost(host)
        return TLSClientConnection(session)
    }

    /// Adds every certificate of the PEM file to the context's store; none is an error.
    private static func trust(_ path: String, in context: OpaquePointer) throws(CAFileError) {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path, maxBytes: maxCAFileBytes)
        } catch {
            throw CAFileError(code: .unreadable, message: "--cacert \(path) cannot be read: \(error.description)")
        }
        guard let store = SSL_CTX_get_cert_store(context) else {
            throw CAFileError(code: .invalid, message: "--cacert \(path): no certificate store")
        }
        var added = 0
        bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else { return }
            defer { BIO_free(bio) }
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                if X509_STORE_add_cert(store, certificate) == 1 { added += 1 }
                X509_free(certificate)
            }
        }
        // The end of the PEM stream is queued as an error too: nothing of it may be reported against a handshake.
        ERR_clear_error()
        guard added > 0 else {
            throw CAFileError(
                code: .invalid, message: "--cacert \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
    }
}

/// Why a client handshake failed, as the report counts it.
package enum TLSHandshakeFailure: Sendable, Equatable {
    /// The chain does not end at a CA the client trusts (RFC 5280 §6: no trust anchor).
    case unknownAuthority(String)
    /// The certificate is not for the host the URL names (RFC 6125).
    case nameMismatch(String)
    /// Another verification failure: expired, not yet valid, wrong purpose, a bad signature.
    case certificate(String)
    /// Not TLS, an alert, no common version or suite, or the server closed the connection mid-handshake.
    case protocolError(String)

    package var reason: String {
        switch self {
        case .unknownAuthority(let reason), .nameMismatch(let reason), .certificate(let reason),
            .protocolError(let reason):
            reason
        }
    }
}

/// What one step of a non-blocking client handshake did.
package enum TLSHandshakeStep: Sendable, Equatable {
    case done
    case wantRead
    case wantWrite
    case failed(TLSHandshakeFailure)
}

/// One client TLS connection of the load generator, on its non-blocking socket. Confined to the loop's thread.
package final class TLSClientConnection {
    private let session: TLSSession

    fileprivate init(_ session: TLSSession) { self.session = session }

    /// Advances the handshake as far as the socket allows.
    package func handshake() -> TLSHandshakeStep {
        switch session.handshake() {
        case .done: return .done
        case .wantRead: return .wantRead
        case .wantWrite: return .wantWrite
        case .closed: return .failed(.protocolError("the server closed the connection during the TLS handshake"))
        case .failed(let reason): return .failed(classify(reason))
        }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSOutcome { session.read(into: buffer) }

    package func write(_ bytes: UnsafeRawBufferPointer) -> TLSOutcome { session.write(bytes) }

    /// Decrypted bytes `read` returns without the socket: no readiness event announces them.
    package var hasPending: Bool { session.hasPending }

    /// The negotiated protocol version (`TLSv1.3`) and ALPN protocol, once the handshake is done.
    package var version: String { session.version }
    package var alpn: String? { session.alpn }

    /// The certificate check's verdict (`SSL_get_verify_result`) tells a trust or name failure from a protocol
    /// one: OpenSSL's error queue only says "certificate verify failed" for all of them.
    private func classify(_ reason: String) -> TLSHandshakeFailure {
        let result = Int32(truncatingIfNeeded: SSL_get_verify_result(session.ssl))
        guard result != X509_V_OK else {
            // An end of stream with nothing queued is a SYSCALL error with errno 0 (SSL_get_error(3), BUGS).
            if reason == "socket error 0" {
                return .protocolError("the server closed the connection during the TLS handshake")
            }
            if reason.hasPrefix("socket error") {
                return .protocolError("the connection failed during the TLS handshake (\(reason))")
            }
            let prefix = "TLS failed: "
            return .protocolError(reason.hasPrefix(prefix) ? String(reason.dropFirst(prefix.count)) : reason)
        }
        let text = X509_verify_cert_error_string(Int(result)).map { String(cString: $0) } ?? "error \(result)"
        switch result {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
            X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return .unknownAuthority("the server's certificate is not from a trusted CA (\(text))")
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return .nameMismatch("the server's certificate is not for this host (\(text))")
        default:
            return .certificate("the server's certificate was refused (\(text))")
        }
    }
}

@available(*, unavailable)
extension TLSClientConnection: Sendable {}
