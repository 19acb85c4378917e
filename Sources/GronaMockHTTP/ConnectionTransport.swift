import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a connection reads its requests from and writes its answers to: the socket itself for plain HTTP
/// (`SocketTransport`), or a layer over the socket such as TLS (`GronaMockTLS`), which this module knows
/// nothing of.
///
/// A transport is confined to the event loop that owns its connection, like the connection itself. It never
/// blocks: what it cannot do now it reports as `wouldBlock` (or 0 bytes sent), and says through
/// `interestNeeded` which readiness it waits for when that is not the obvious one (a TLS read that must
/// first write a handshake message, a TLS write that must first read).
package protocol ConnectionTransport {
    /// Reads what has arrived, decoded, into `buffer`.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> TransportReceive

    /// Writes, in order, what it can of `vectors` now; returns how many of their bytes it took (0 when it
    /// would block). `scratch` is the loop's buffer, the caller's for the length of the call: a transport that
    /// frames bytes (TLS records) gathers small buffers there, so that a head and its body go as one record.
    func send(_ vectors: inout [iovec], scratch: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int

    /// Readiness the transport needs besides the connection's own: `.write` while a read waits to write
    /// (handshake), `.read` while a write waits to read. Empty for the socket.
    var interestNeeded: Poller.Interest { get }

    /// Bytes already read from the socket and decoded but not yet returned by `receive`, which no readiness
    /// event will announce (TLS read-ahead). Always false for the socket.
    var hasBufferedInput: Bool { get }

    /// Ends our sending side (a lingering close, RFC 9112 §9.6); reading goes on.
    func shutdownWrite()

    /// Releases the transport and closes the socket. Called once. `cut`: the connection ends inside an answer
    /// (a drop or truncate fault, a streamed body that failed), and must end as a broken network would: over
    /// TLS without close_notify, which would tell the client that what it read is whole (RFC 9112 §9.8: an
    /// incomplete close is how a client learns of a truncated answer; a close-delimited body has no other).
    func close(cut: Bool)
}

/// What one `ConnectionTransport.receive` brought.
package enum TransportReceive: Equatable {
    /// `count` bytes were read; `more`: more may be ready without waiting for the poller.
    case bytes(Int, more: Bool)
    /// The client finished sending.
    case end
    case wouldBlock
    /// This client cannot be served on this transport (plain HTTP sent to a TLS port): the connection answers
    /// with the error, which the transport sends as it is, and closes.
    case refuse(HTTPError)
    /// The connection is unusable (a reset, a failed handshake): close it.
    case failed
}

/// Makes the transport of each connection one listener accepts.
package protocol ConnectionTransportFactory: Sendable {
    /// The URL scheme clients use on this listener (`https`).
    var scheme: String { get }

    /// The transport for the socket `fd`, just accepted, on the thread of the loop that will own it; nil
    /// when none can be made (the caller then closes `fd`).
    func makeTransport(fd: Int32) -> (any ConnectionTransport)?

    /// What a client this listener turns away before any transport exists (over the connection cap, out of
    /// descriptors) is sent, raw on the socket, before the close: a client of this protocol must be able to
    /// read it, which the plain-HTTP 503 is not to a TLS client.
    var refusal: [UInt8] { get }

    /// Called once a server serves this listener: a factory with work of its own between connections (TLS
    /// watching its certificate files) starts it here, off the event loops.
    func startServing()

    /// Called once the server serving this listener has stopped (every loop finished): what `startServing`
    /// started ends here, so that no thread outlives the server.
    func stopServing()
}

extension ConnectionTransportFactory {
    package func startServing() {}
    package func stopServing() {}
}

/// Plain HTTP: the connection reads and writes its socket directly, as it did before transports existed (one
/// `recv`, one `sendmsg` over every queued buffer).
struct SocketTransport: ConnectionTransport {
    let fd: Int32

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> TransportReceive {
        do {
            guard let count = try Socket.receive(fd, into: buffer) else { return .wouldBlock }
            // A full buffer means the socket may hold more; a short read drained it.
            return count == 0 ? .end : .bytes(count, more: count == buffer.count)
        } catch {
            return .failed
        }
    }

    func send(_ vectors: inout [iovec], scratch: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try Socket.send(fd, &vectors)
    }

    var interestNeeded: Poller.Interest { [] }

    var hasBufferedInput: Bool { false }

    func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    func close(cut: Bool) {
        #if canImport(Glibc)
        Glibc.close(fd)
        #else
        Darwin.close(fd)
        #endif
    }
}
