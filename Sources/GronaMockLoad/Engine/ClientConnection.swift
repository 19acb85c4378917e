import GronaMockPlatform
import GronaMockTLSCore

/// One slot of `HTTPClient`'s pool: a socket, its lifecycle, the request on it and the answer being read.
/// Reused when its socket closes, so that a long run does not allocate per connection.
final class ClientConnection {
    let slot: Int
    var fd: Int32 = -1
    var state = ClientConnectionState()
    var parser = HTTPResponseParser()
    var request: ClientRequest?
    /// Bytes of `request` written so far.
    var sent = 0
    /// The kernel's stamp (system clock nanoseconds) of the last bytes read for the answer; 0 without one.
    var arrival: Int64 = 0
    var deadline: UInt64 = .max
    var interest: Poller.Interest = []
    /// The TLS session of an `https://` target's connection, from the connect on; nil in the clear.
    var tls: TLSClientConnection?
    /// In `HTTPClient.tlsBuffered`: its TLS session holds decrypted bytes no readiness event will announce.
    var awaitsBufferedRead = false
    /// What the answer being read may keep of the client's `AnswerMemory`.
    var grant = AnswerGrant.none
    /// The unparsed tail of earlier reads (a head or chunk line split across reads).
    private var carry: [UInt8] = []
    /// Bytes came after the whole answer (this client never pipelines, so nobody asked for them): the answer
    /// stands, but the connection is not trusted with another request.
    private(set) var unaskedBytes = false

    init(slot: Int) { self.slot = slot }

    func reopen(fd: Int32) {
        self.fd = fd
        tls = nil
        awaitsBufferedRead = false
        state = ClientConnectionState()
        parser.reset()
        dropCarry()
        unaskedBytes = false
        request = nil
        interest = []
        deadline = .max
    }

    func begin(_ request: ClientRequest, deadline: UInt64) {
        self.request = request
        self.deadline = deadline
        sent = 0
        arrival = 0
        parser.reset(bodyLimit: request.answerLimit)
    }

    /// The request is over: what its answer kept is let go (a delivered body now belongs to its completion),
    /// so that a connection between answers holds nothing of one.
    func endRequest() {
        request = nil
        deadline = .max
        sent = 0
        parser.reset()
        dropCarry()
    }

    /// Bytes of the answer kept: its body so far and what could not be parsed yet. Never more than `grant`.
    var held: Int { carry.count + parser.body.count }

    /// The most the answer may yet come to keep: its exact size once its `Content-Length` is known, otherwise
    /// its body limit and a head (chunk lines and trailers are held to that by the parser).
    var ceiling: Int {
        if case .fixedBody(let remaining) = parser.state { return held + remaining }
        return parser.bodyLimit + HTTPResponseParser.maximumHeadBytes
    }

    /// Keeps a small buffer for the next split head, and lets a larger one go.
    private func dropCarry() {
        if carry.capacity > 1024 {
            carry = []
        } else {
            carry.removeAll(keepingCapacity: true)
        }
    }

    /// Parses `bytes` after what was carried; keeps what could not be parsed yet. Bytes beyond the end of the
    /// answer (a stray CRLF after a body) are dropped and noted in `unaskedBytes`.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(HTTPResponseParseError) {
        if carry.isEmpty {
            let used = try parser.parse(bytes)
            if used < bytes.count {
                guard !parser.isComplete else {
                    unaskedBytes = true
                    return
                }
                carry.append(contentsOf: bytes[used...])
            }
            return
        }
        carry.append(contentsOf: bytes)
        let parsed = carry.withUnsafeBytes { all in
            Result { () throws(HTTPResponseParseError) -> Int in try parser.parse(all) }
        }
        let used = try parsed.get()
        carry.removeFirst(used)
        if !carry.isEmpty && parser.isComplete {
            unaskedBytes = true
            carry.removeAll(keepingCapacity: true)
        }
    }
}

@available(*, unavailable)
extension ClientConnection: Sendable {}

/// A FIFO of requests waiting for a connection; amortised O(1) without a deque type.
struct RequestQueue {
    private var items: [ClientRequest] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }

    mutating func push(_ request: ClientRequest) { items.append(request) }

    mutating func pop() -> ClientRequest? {
        guard head < items.count else { return nil }
        let request = items[head]
        head += 1
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        } else if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return request
    }
}
