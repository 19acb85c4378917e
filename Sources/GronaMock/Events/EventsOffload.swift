import GronaMockHTTP
import GronaMockPlatform

/// Where a large batch is decoded, parsed and validated: on a pool of its own rather than on the event loop
/// that read it, so that the small requests sharing that loop do not wait behind half a megabyte of gunzip
/// and JSON (issue 29, "nothing blocking on a loop").
///
/// A pool of its own, not the control API's: a violations scan there can hold its threads for minutes, and
/// ingestion must never wait for one.
struct EventsOffload: Sendable {
    /// Batches whose JSON is at least this many bytes go to `pool`.
    let threshold: Int
    let pool: BlockingPool

    /// Whether the batch `body` goes to the pool: by the size of its JSON, which for a gzip body is the
    /// size its trailer states (RFC 1952 §2.3.1, ISIZE: the input's length modulo 2^32). The client's word,
    /// used only to choose a thread: a false one moves the work, and the decoder still stops at 512 KiB.
    func takes(_ body: [UInt8]) -> Bool {
        Self.jsonBytes(body) >= threshold
    }

    static func jsonBytes(_ body: [UInt8]) -> Int {
        guard body.count >= 18, body[0] == 0x1F, body[1] == 0x8B else { return body.count }
        let trailer = body.suffix(4)
        return trailer.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
