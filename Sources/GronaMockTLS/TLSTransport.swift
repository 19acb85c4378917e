import GronaMockHTTP
import GronaMockPlatform
import GronaMockTLSCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a TLS connection is, as one value with explicit transitions (the connection's own lifecycle,
/// `ConnectionStateMachine`, sits above it and knows nothing of TLS).
///
///     awaitingFirstByte ──0x16 (a handshake record)──▶ handshaking ──finished──▶ established
///            │                                              │                        │
///            └──any other byte──▶ refusingPlainHTTP          └──alert or socket error─┴──▶ failed
///
/// and every phase ends in `closed`.
enum TLSPhase: Equatable {
    /// Nothing read yet: the first byte tells a TLS record (a ClientHello starts with 0x16, RFC 8446 §5.1)
    /// from plain HTTP.
    case awaitingFirstByte
    case handshaking
    case established
    /// Plain HTTP came: the connection's 400 goes out in the clear, and what the client sends is dropped.
    case refusingPlainHTTP
    /// A fatal TLS error or a dead socket: no close_notify may follow (RFC 8446 §6.2).
    case failed
    case closed
}

/// HTTP over TLS on one non-blocking socket, inside the event loop: OpenSSL's WANT_READ / WANT_WRITE become
/// the readiness the connection waits for, and no thread is ever held. The handshake runs within `receive`
/// (the connection's header timeout bounds it: a client that says nothing, or stops half-way, is closed).
final class TLSTransport: ConnectionTransport {
    private let fd: Int32
    private let session: TLSSession
    private var phase = TLSPhase.awaitingFirstByte
    private var readWaitsForWrite = false
    private var writeWaitsForRead = false
    /// The length of a write OpenSSL must be offered again, with the same bytes (SSL_write(3)); the queue
    /// still holds them, since nothing was taken.
    private var retryLength: Int?
    private var closeNotifySent = false

    init(fd: Int32, context: ServerTLSContext) throws(TLSError) {
        self.fd = fd
        session = try TLSSession(context: context.pointer, fd: fd, server: true)
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> TransportReceive {
        switch phase {
        case .awaitingFirstByte:
            var byte: UInt8 = 0
            let peeked = recv(fd, &byte, 1, Int32(MSG_PEEK))
            if peeked < 0 {
                let error = Socket.lastErrno()
                if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return .wouldBlock }
                phase = .failed
                return .failed
            }
            if peeked == 0 { return .end }
            guard byte == 0x16 else {
                phase = .refusingPlainHTTP
                return .refuse(.httpsRequired(authority: Socket.localAuthority(fd)))
            }
            phase = .handshaking
            return receive(into: buffer)
        case .handshaking:
            switch session.handshake() {
            case .done:
                phase = .established
                readWaitsForWrite = false
                return receive(into: buffer)
            case let other:
                return settleRead(other)
            }
        case .established:
            return settleRead(session.read(into: buffer))
        case .refusingPlainHTTP:
            do {
                guard let count = try Socket.receive(fd, into: buffer) else { return .wouldBlock }
                return count == 0 ? .end : .bytes(count, more: false)
            } catch {
                return .failed
            }
        case .failed, .closed:
            return .failed
        }
    }

    private func settleRead(_ outcome: TLSOutcome) -> TransportReceive {
        readWaitsForWrite = false
        switch outcome {
        case .done(let count):
            return .bytes(count, more: session.hasPending)
        case .wantRead:
            return .wouldBlock
        case .wantWrite:
            readWaitsForWrite = true
            return .wouldBlock
        case .closed:
            return .end
        case .failed:
            phase = .failed
            return .failed
        }
    }

    func send(_ vectors: inout [iovec], scratch: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        switch phase {
        case .refusingPlainHTTP:
            return try Socket.send(fd, &vectors)
        case .established:
            break
        case .awaitingFirstByte, .handshaking, .failed, .closed:
            // Nothing is answered before a request, which needs the handshake done.
            throw SystemError(call: "TLS write", reason: "the connection is not established")
        }
        guard let first = vectors.first, let base = first.iov_base else { return 0 }
        let outcome: TLSOutcome
        let length: Int
        if let retry = retryLength, first.iov_len >= retry {
            length = retry
            outcome = session.write(UnsafeRawBufferPointer(start: base, count: retry))
        } else if retryLength == nil && (vectors.count == 1 || first.iov_len >= scratch.count) {
            // One buffer, or a large one (a streamed page): written in place, as many records as it takes.
            length = first.iov_len
            outcome = session.write(UnsafeRawBufferPointer(start: base, count: length))
        } else {
            // A head and a small body (most answers): gathered into one record, one send.
            length = Self.gather(vectors, into: scratch, limit: retryLength ?? scratch.count)
            outcome = session.write(UnsafeRawBufferPointer(rebasing: scratch[0..<length]))
        }
        writeWaitsForRead = false
        switch outcome {
        case .done(let count):
            retryLength = nil
            return count
        case .wantWrite:
            retryLength = length
            return 0
        case .wantRead:
            retryLength = length
            writeWaitsForRead = true
            return 0
        case .closed:
            phase = .failed
            throw SystemError(call: "TLS write", reason: "the client closed the connection")
        case .failed(let reason):
            phase = .failed
            throw SystemError(call: "TLS write", reason: reason)
        }
    }

    /// Copies the front of `vectors` into `scratch`, up to `limit` bytes; returns how many.
    private static func gather(_ vectors: [iovec], into scratch: UnsafeMutableRawBufferPointer, limit: Int) -> Int {
        var length = 0
        let capacity = min(limit, scratch.count)
        for vector in vectors where length < capacity {
            guard let base = vector.iov_base else { continue }
            let take = min(vector.iov_len, capacity - length)
            scratch.baseAddress.map { ($0 + length).copyMemory(from: base, byteCount: take) }
            length += take
        }
        return length
    }

    var interestNeeded: Poller.Interest {
        var needed: Poller.Interest = []
        if readWaitsForWrite { needed.insert(.write) }
        if writeWaitsForRead { needed.insert(.read) }
        return needed
    }

    var hasBufferedInput: Bool { phase == .established && session.hasPending }

    func shutdownWrite() {
        sendCloseNotifyOnce()
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    func close(cut: Bool) {
        if !cut { sendCloseNotifyOnce() }
        phase = .closed
        #if canImport(Glibc)
        Glibc.close(fd)
        #else
        Darwin.close(fd)
        #endif
    }

    /// close_notify tells the client the answer is whole (RFC 8446 §6.1); only on a working connection.
    private func sendCloseNotifyOnce() {
        guard phase == .established && !closeNotifySent else { return }
        closeNotifySent = true
        session.sendCloseNotify()
    }
}
