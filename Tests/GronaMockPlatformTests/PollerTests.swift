import GronaMockTestSupport
import Testing

@testable import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Each poller backend on its own, without an event loop: what the loop relies on, event by event.
@Suite("Poller backends")
struct PollerTests {
    @Test("a wake-up from another thread ends a wait and is consumed by it", arguments: PollerBackend.allCases)
    func wakeupFromAnotherThread(backend: PollerBackend) throws {
        let poller = Unchecked(try Poller(backend))
        // Many wake-ups, more than a pipe drains in one read: one wait must still consume them all.
        let threads = (0..<4).map { index in
            LoopThread.spawn(name: "wake-\(index)") {
                for _ in 0..<250 { poller.value.wakeup() }
            }
        }
        let first = try ready(poller.value, timeout: 10_000)
        for thread in threads { thread.join() }
        #expect(first.map(\.token) == [Poller.wakeupToken])
        // Wake-ups sent after the first wait returned are consumed by the next; then none is left.
        _ = try ready(poller.value, timeout: 0)
        #expect(try ready(poller.value, timeout: 0).isEmpty)
    }

    @Test("events carry their tokens through registrations, changes and removals", arguments: PollerBackend.allCases)
    func tokensFollowRegistrations(backend: PollerBackend) throws {
        let poller = try Poller(backend)
        let pipes = try (0..<24).map { _ in try Pipe() }
        defer { for pipe in pipes { pipe.close() } }
        for (index, pipe) in pipes.enumerated() {
            try poller.register(pipe.reader, token: UInt64(100 + index), interest: .read)
        }
        for index in stride(from: 0, to: pipes.count, by: 2) { pipes[index].put() }
        // The first, a middle and the last registration go; a token changes; one loses its interest.
        for index in [0, 5, 6, 12, 23] { poller.unregister(pipes[index].reader) }
        try poller.modify(pipes[2].reader, token: 999, interest: .read)
        try poller.modify(pipes[4].reader, token: 104, interest: [])
        let events = try ready(poller, timeout: 5000)
        #expect(Set(events.map(\.token)) == [999, 108, 110, 114, 116, 118, 120, 122])
        #expect(events.count == 8)
        #expect(events.allSatisfy { $0.readable && !$0.writable && !$0.hangup })

        // A descriptor registered again after its removal is watched again, under its new token.
        try poller.register(pipes[0].reader, token: 7, interest: .read)
        try poller.register(pipes[1].writer, token: 8, interest: .write)
        let again = try ready(poller, timeout: 5000)
        #expect(again.contains { $0.token == 7 && $0.readable })
        #expect(again.contains { $0.token == 8 && $0.writable && !$0.readable })
    }

    @Test(
        "a descriptor cannot be registered twice, nor changed before it is registered",
        arguments: PollerBackend.allCases)
    func registrationErrors(backend: PollerBackend) throws {
        let poller = try Poller(backend)
        let pipe = try Pipe()
        defer { pipe.close() }
        try poller.register(pipe.reader, token: 5, interest: .read)
        #expect(throws: SystemError.self) { try poller.register(pipe.reader, token: 6, interest: .read) }
        #expect(throws: SystemError.self) { try poller.modify(pipe.writer, token: 6, interest: .write) }
        poller.unregister(pipe.writer)  // not registered: nothing happens
        pipe.put()
        #expect(try ready(poller, timeout: 5000).map(\.token) == [5])
    }

    @Test(
        "unregistering while a wait's events are handled leaves the others as they were",
        arguments: PollerBackend.allCases)
    func unregisterDuringHandling(backend: PollerBackend) throws {
        let poller = try Poller(backend)
        let pipes = try (0..<3).map { _ in try Pipe() }
        defer { for pipe in pipes { pipe.close() } }
        for (index, pipe) in pipes.enumerated() {
            try poller.register(pipe.reader, token: UInt64(10 + index), interest: .read)
            pipe.put()
        }
        let count = try poller.wait(timeoutMilliseconds: 5000)
        #expect(count == 3)
        var tokens: [UInt64] = []
        for index in 0..<count {
            let event = poller.event(at: index)
            tokens.append(event.token)
            // The loop closes a connection while it handles the batch: the first one handled goes.
            if index == 0 { poller.unregister(pipes[Int(event.token) - 10].reader) }
        }
        #expect(tokens.sorted() == [10, 11, 12])
    }

    @Test(
        "a client's bytes are readable; write interest is writable; no interest reports nothing",
        arguments: PollerBackend.allCases)
    func readableAndWritable(backend: PollerBackend) throws {
        let poller = try Poller(backend)
        let pair = try TCPPair()
        try poller.register(pair.server, token: 3, interest: .read)
        try pair.client.send("ping")
        let read = try ready(poller, timeout: 5000)
        #expect(read.count == 1)
        #expect(read.first.map { $0.token == 3 && $0.readable && !$0.writable && !$0.hangup } == true)
        try poller.modify(pair.server, token: 3, interest: [.read, .write])
        let both = try ready(poller, timeout: 5000)
        #expect(both.first.map { $0.readable && $0.writable && !$0.hangup } == true)
        // Level-triggered: the bytes are still unread, but nobody asked.
        try poller.modify(pair.server, token: 3, interest: [])
        #expect(try ready(poller, timeout: 0).isEmpty)
    }

    @Test(
        "a client that finishes sending is readable with the end of stream, not a hang-up",
        arguments: PollerBackend.allCases)
    func halfCloseIsReadable(backend: PollerBackend) throws {
        let poller = try Poller(backend)
        let pair = try TCPPair()
        try poller.register(pair.server, token: 3, interest: .read)
        try pair.client.send("last words")
        pair.client.finishSending()
        let events = try ready(poller, timeout: 5000)
        #expect(events.count == 1)
        #expect(events.first.map { $0.readable && !$0.hangup } == true)
        // The client can still read: the server may answer what it sent.
        #expect(pair.receiveAll() == Array("last words".utf8))
        Socket.sendNow(pair.server, Array("answer".utf8))
        #expect(pair.client.hasDataAvailable(waitingMilliseconds: 5000))
    }

    @Test("a client that resets: a hang-up, or a read that fails", arguments: PollerBackend.allCases)
    func resetIsNoticed(backend: PollerBackend) throws {
        let poller = try Poller(backend)
        let pair = try TCPPair()
        try poller.register(pair.server, token: 3, interest: .read)
        // SO_LINGER 0, then close: the kernel sends a reset, as for a killed client.
        pair.client.reset()
        pair.client.closeNow()
        let events = try ready(poller, timeout: 5000)
        #expect(events.count == 1)
        guard let event = events.first else { return }
        #expect(event.hangup || (event.readable && pair.readEnds()))
    }

    @Test(
        "both directions closed: a hang-up when writing, an end of stream when reading",
        arguments: PollerBackend.allCases)
    func bothDirectionsClosed(backend: PollerBackend) throws {
        let poller = try Poller(backend)
        let writer = try TCPPair()
        let reader = try TCPPair()
        for pair in [writer, reader] {
            shutdown(pair.server, Int32(SHUT_WR))
            pair.client.closeNow()
        }
        try poller.register(writer.server, token: 4, interest: .write)
        try poller.register(reader.server, token: 5, interest: .read)
        var events: [UInt64: Poller.Event] = [:]
        #expect(
            try eventually(seconds: 5) {
                for event in try ready(poller, timeout: 100) { events[event.token] = event }
                return events.count == 2
            })
        #expect(events[4]?.hangup == true)
        if let event = events[5] { #expect(event.hangup || (event.readable && reader.readEnds())) }
    }

    @Test(
        "a wait shorter than a millisecond waits, and a ready descriptor still ends it at once",
        arguments: PollerBackend.allCases)
    func subMillisecondWaits(backend: PollerBackend) throws {
        let poller = try Poller(backend)
        // Rounded down to whole milliseconds, 300 µs would be a wait of 0: a loop keeping a schedule finer
        // than that (grona-mock load) then spins. The kernel may wait longer than asked, never shorter.
        for _ in 0..<5 {
            let start = MonotonicClock.now()
            #expect(try poller.wait(timeoutNanoseconds: 300_000) == 0)
            #expect(MonotonicClock.now() &- start >= 300_000)
        }
        // An hour asked for, and something ready: the wait returns with it.
        let pipe = try Pipe()
        defer { pipe.close() }
        try poller.register(pipe.reader, token: 7, interest: .read)
        pipe.put()
        #expect(try poller.wait(timeoutNanoseconds: 3_600_000_000_000) == 1)
        #expect(poller.event(at: 0).token == 7)
    }

    /// The events of one wait.
    private func ready(_ poller: Poller, timeout: Int32) throws -> [Poller.Event] {
        let count = try poller.wait(timeoutMilliseconds: timeout)
        return (0..<count).map { poller.event(at: $0) }
    }
}

/// Hands a value that is not Sendable to another thread, where the test knows the use is safe (the
/// poller's `wakeup` is meant for any thread).
private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A pipe whose read end a poller watches.
private struct Pipe {
    let reader: Int32
    let writer: Int32

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SystemError.last("pipe") }
        reader = ends[0]
        writer = ends[1]
    }

    /// Makes the read end readable.
    func put() {
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    func close() {
        _ = closeDescriptor(reader)
        _ = closeDescriptor(writer)
    }
}

/// A connected pair on 127.0.0.1: a raw client and the server's accepted, non-blocking socket.
private final class TCPPair {
    let client: RawClient
    let server: Int32
    private let listener: Int32

    init() throws {
        let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        self.listener = listener
        client = try RawClient(port: port)
        var accepted: Int32 = -1
        _ = try eventually(seconds: 5) {
            accepted = try Socket.accept(listener)?.fd ?? -1
            return accepted >= 0
        }
        server = accepted
    }

    deinit {
        if server >= 0 { _ = closeDescriptor(server) }
        _ = closeDescriptor(listener)
    }

    /// Reads what has arrived on the server's side, without blocking.
    func receiveAll() -> [UInt8] {
        var bytes: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { buffer.deallocate() }
        while let count = try? Socket.receive(server, into: buffer), count > 0 {
            bytes += buffer[0..<count]
        }
        return bytes
    }

    /// True when a read on the server's side finds the end of stream or fails (a reset).
    func readEnds() -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        defer { buffer.deallocate() }
        do {
            return try Socket.receive(server, into: buffer) == 0
        } catch {
            return true
        }
    }
}

private func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}
