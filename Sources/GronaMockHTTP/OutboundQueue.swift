import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes waiting to be written on one connection, handed to its transport as up to 64 buffers at a time
/// (one `sendmsg` for the socket).
struct OutboundQueue {
    private var buffers: [[UInt8]] = []
    private var offset = 0
    /// Bytes queued and not yet written, for the read-pause high-water mark.
    private(set) var byteCount = 0
    /// When the socket last took bytes, or when the empty queue was filled: the write timeout counts from it.
    private(set) var lastProgress: UInt64 = 0

    var isEmpty: Bool { buffers.isEmpty }

    /// `now`: the loop's time, which starts the write timeout when the queue was empty.
    mutating func append(_ bytes: [UInt8], at now: UInt64) {
        if buffers.isEmpty { lastProgress = now }
        buffers.append(bytes)
        byteCount += bytes.count
    }

    mutating func removeAll() {
        buffers.removeAll()
        offset = 0
        byteCount = 0
    }

    /// Writes what the transport takes now; returns how many bytes went (0 when it would block).
    mutating func send(
        through transport: some ConnectionTransport, scratch: UnsafeMutableRawBufferPointer, at now: UInt64
    ) throws(SystemError) -> Int {
        var vectors: [iovec] = []
        vectors.reserveCapacity(min(buffers.count, 64))
        let sent = try withVectors(from: 0, offset: offset, into: &vectors) { vectors throws(SystemError) in
            try transport.send(&vectors, scratch: scratch)
        }.get()
        consume(sent)
        if sent > 0 { lastProgress = now }
        return sent
    }

    /// Pins each queued buffer in turn (recursively, since each pin is a closure) and sends them all.
    private func withVectors(
        from index: Int, offset: Int, into vectors: inout [iovec],
        _ send: (inout [iovec]) throws(SystemError) -> Int
    ) -> Result<Int, SystemError> {
        if index == buffers.count || index == 64 {
            return Result { () throws(SystemError) in try send(&vectors) }
        }
        return buffers[index].withUnsafeBytes { bytes in
            let base = UnsafeMutableRawPointer(mutating: bytes.baseAddress).map { $0 + offset }
            vectors.append(iovec(iov_base: base, iov_len: bytes.count - offset))
            return withVectors(from: index + 1, offset: 0, into: &vectors, send)
        }
    }

    private mutating func consume(_ count: Int) {
        var remaining = count
        byteCount -= count
        while remaining > 0, let first = buffers.first {
            let left = first.count - offset
            if remaining >= left {
                remaining -= left
                buffers.removeFirst()
                offset = 0
            } else {
                offset += remaining
                remaining = 0
            }
        }
    }
}
