import Foundation
import GronaMockHTTP
import GronaMockPlatform
import Testing

@testable import GronaMockLoad

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The load client keeps the answers of all its connections within one budget (`AnswerMemory`) that does not
/// grow with the connections: long answers on many connections at once take turns, and each still arrives
/// whole; endless ones are given up at their limit; none waits for ever.
@Suite struct AnswerMemoryTests {
    /// 1 MiB of answers, answers of at most 256 KiB: room for three whole grants at once.
    static let budget = 1024 * 1024
    static let limit = 256 * 1024

    static func client(_ port: Int, connections: Int, backend: PollerBackend, timeout: Duration) throws -> HTTPClient {
        try HTTPClient(
            HTTPClient.Configuration(
                host: "127.0.0.1", port: port, maxConnections: connections, timeout: timeout, pollerBackend: backend,
                answerMemory: budget, largestAnswer: limit))
    }

    /// Submits `count` GETs at once and polls until all are done or a minute passed; returns those done.
    static func run(_ client: HTTPClient, count: Int) -> [ClientCompletion] {
        for _ in 0..<count {
            client.submit(
                ClientRequest(
                    tag: RequestTag(endpoint: nil), method: "GET", path: "/", host: client.host,
                    intendedStart: MonotonicClock.now(), answerLimit: limit))
        }
        var done: [ClientCompletion] = []
        let deadline = MonotonicClock.now() + 60_000_000_000
        while done.count < count && MonotonicClock.now() < deadline {
            client.poll(timeoutMilliseconds: 50) { done.append($0) }
        }
        return done
    }

    /// 64 chunked answers of 200 KiB, their length unknown until their last chunk: each needs a whole grant,
    /// and the budget holds three. They wait their turn, and every one arrives whole.
    @Test(arguments: PollerBackend.allCases)
    func largeAnswersOnManyConnectionsTakeTurnsAndArriveWhole(backend: PollerBackend) throws {
        let chunk = String(repeating: "abcdefgh", count: 512)
        let body =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(repeating: "1000\r\n" + chunk + "\r\n", count: 50) + "0\r\n\r\n"
        let server = try ScriptedServer(Array(repeating: .send(body), count: 64))
        defer { server.stop() }
        let client = try Self.client(server.port, connections: 64, backend: backend, timeout: .seconds(120))
        let done = Self.run(client, count: 64)
        #expect(done.count == 64)
        for completion in done {
            guard case .response(let head, let body) = completion.outcome else {
                Issue.record("\(completion.outcome)")
                continue
            }
            #expect(head.status == 200)
            #expect(body.count == 50 * 4096)
            #expect(body.prefix(8) == ArraySlice("abcdefgh".utf8) && body.suffix(8) == ArraySlice("abcdefgh".utf8))
        }
        #expect(client.answerMemoryPeak <= Self.budget)
        #expect(client.answerMemoryWaits > 0, "the budget held them all at once: the test proves nothing")
        #expect(client.inFlight == 0)
    }

    /// Every connection streams an answer that never ends: each is given up at its limit as too large, in
    /// turn, within the budget; none is left waiting until its (long) timeout.
    @Test(arguments: PollerBackend.allCases)
    func endlessAnswersOnEveryConnectionAreTooLargeWithinTheBudget(backend: PollerBackend) throws {
        let server = try FloodServer(
            prefix: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            unit: "4000\r\n" + String(repeating: "x", count: 0x4000) + "\r\n")
        defer { server.stop() }
        let client = try Self.client(server.port, connections: 32, backend: backend, timeout: .seconds(120))
        let done = Self.run(client, count: 32)
        #expect(done.count == 32)
        for completion in done {
            guard case .failure(let failure) = completion.outcome else {
                Issue.record("an endless answer was delivered")
                continue
            }
            #expect(failure == .answerTooLarge)
        }
        #expect(client.answerMemoryPeak <= Self.budget)
        #expect(client.answerMemoryPeak >= Self.limit, "no answer grew to its limit")
    }

    /// A head that never ends is too large at 64 KiB, whatever the body's limit.
    @Test func aHeadThatNeverEndsIsTooLarge() throws {
        let server = try FloodServer(
            prefix: "HTTP/1.1 200 OK\r\n", unit: "X-Filler: " + String(repeating: "y", count: 1000) + "\r\n")
        defer { server.stop() }
        let client = try Self.client(server.port, connections: 1, backend: .platformDefault, timeout: .seconds(120))
        let done = Self.run(client, count: 1)
        guard case .failure(let failure)? = done.first?.outcome else {
            Issue.record("\(done)")
            return
        }
        #expect(failure == .answerTooLarge)
    }

    /// A body that drips a byte at a time is held by the request's timeout, and says so.
    @Test func aBodyThatDripsTimesOut() throws {
        let listener = try LoopbackListener(backlog: 4)
        listener.start { fd in
            defer { close(fd) }
            var byte: UInt8 = 0
            // The request's head, then the answer's, then a byte of body every 50 ms until the client goes.
            var seen: [UInt8] = []
            while seen.suffix(4) != [13, 10, 13, 10], read(fd, &byte, 1) == 1 { seen.append(byte) }
            var text = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            while !listener.isStopped,
                text.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0
            {
                text = Array("1\r\nx\r\n".utf8)
                usleep(50_000)
            }
        }
        defer { listener.stop() }
        let client = try Self.client(
            listener.port, connections: 1, backend: .platformDefault, timeout: .milliseconds(500))
        let done = Self.run(client, count: 1)
        guard case .failure(let failure)? = done.first?.outcome else {
            Issue.record("\(done)")
            return
        }
        #expect(failure == .timeout)
    }

    /// The small grants leave room for the largest whole one: when they are all taken, one answer can still
    /// grow, and none may start until an answer ends.
    @Test func smallGrantsLeaveRoomForTheLargestWholeOne() {
        var memory = AnswerMemory(budget: Self.budget, largestGrant: Self.limit)
        var grants = Array(repeating: AnswerGrant.none, count: 60)
        var started = 0
        for slot in grants.indices where memory.start(&grants[slot], slot: slot) { started += 1 }
        #expect(started == (Self.budget - Self.limit) / AnswerMemory.smallGrant)
        #expect(grants[started] == .waitingToStart)
        #expect(memory.waits == 60 - started)
        #expect(memory.grow(&grants[0], to: Self.limit, slot: 0))
        #expect(grants[0] == .whole(Self.limit))
        #expect(!memory.grow(&grants[1], to: Self.limit, slot: 1))
        #expect(grants[1] == .waitingToGrow(Self.limit))
        #expect(memory.peak <= Self.budget)
        // The whole grant ends, its body handed over: counted until the turn's answers are handled.
        memory.release(&grants[0], delivered: 1000)
        #expect(memory.granted == (started - 1) * AnswerMemory.smallGrant + 1000)
        memory.releaseDelivered()
        #expect(memory.nextGrowing() == 1)
        #expect(memory.grow(&grants[1], to: Self.limit, slot: 1))
        // A small grant is taken back at once when its answer fails.
        memory.release(&grants[2])
        #expect(memory.nextStarting() == started)
        #expect(memory.start(&grants[started], slot: started))
        #expect(memory.granted == memory.grantedSmall + Self.limit)
    }
}
