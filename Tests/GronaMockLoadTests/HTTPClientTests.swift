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

/// The load client against servers that answer in each framing, close in the middle of an answer, or never
/// answer; on every poller backend.
@Suite struct HTTPClientTests {
    static func client(_ port: Int, backend: PollerBackend, timeout: Duration = .seconds(5)) throws -> HTTPClient {
        try HTTPClient(
            HTTPClient.Configuration(
                host: "127.0.0.1", port: port, maxConnections: 2, timeout: timeout, pollerBackend: backend))
    }

    static func get(_ client: HTTPClient, _ path: String = "/") -> ClientCompletion {
        client.exchange(
            ClientRequest(
                tag: RequestTag(endpoint: .config), method: "GET", path: path, host: client.host,
                intendedStart: MonotonicClock.now()))
    }

    static func body(_ completion: ClientCompletion) -> String? {
        guard case .response(_, let body) = completion.outcome else { return nil }
        return String(decoding: body, as: UTF8.self)
    }

    @Test(arguments: PollerBackend.allCases)
    func readsBothFramingsOnOneKeptConnection(backend: PollerBackend) throws {
        let server = try ScriptedServer([
            .send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"),
            .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nsec\r\n3\r\nond\r\n0\r\n\r\n"),
            .send("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n"),
        ])
        defer { server.stop() }
        let client = try Self.client(server.port, backend: backend)
        #expect(Self.body(Self.get(client)) == "first")
        #expect(Self.body(Self.get(client)) == "second")
        let limited = Self.get(client)
        guard case .response(let head, _) = limited.outcome else {
            Issue.record("no answer: \(limited.outcome)")
            return
        }
        #expect(head.status == 429)
        #expect(head.retryAfterSeconds == 2)
        #expect(client.inFlight == 0)
    }

    @Test(arguments: PollerBackend.allCases)
    func aConnectionClosedMidBodyIsAClosedFailureAndTheNextRequestGetsAFreshOne(backend: PollerBackend) throws {
        let server = try ScriptedServer([
            .sendAndClose("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part"),
            .send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
        ])
        defer { server.stop() }
        let client = try Self.client(server.port, backend: backend)
        let cut = Self.get(client)
        guard case .failure(let failure) = cut.outcome else {
            Issue.record("a cut answer was delivered: \(cut.outcome)")
            return
        }
        #expect(failure == .closed)
        #expect(Self.body(Self.get(client)) == "ok")
    }

    @Test(arguments: PollerBackend.allCases)
    func aServerThatNeverAnswersTimesOut(backend: PollerBackend) throws {
        let server = try ScriptedServer([.silence])
        defer { server.stop() }
        let client = try Self.client(server.port, backend: backend, timeout: .milliseconds(200))
        let silent = Self.get(client)
        guard case .failure(let failure) = silent.outcome else {
            Issue.record("expected a timeout, got \(silent.outcome)")
            return
        }
        #expect(failure == .timeout)
    }

    @Test func aRefusedConnectionIsAConnectFailure() throws {
        // Bind a port, then free it: nothing listens there any more.
        let server = try ScriptedServer([])
        let port = server.port
        server.stop()
        let client = try Self.client(port, backend: .platformDefault)
        let refused = Self.get(client)
        guard case .failure(let failure) = refused.outcome else {
            Issue.record("expected a connect failure, got \(refused.outcome)")
            return
        }
        #expect(failure == .connect)
    }

    /// A request handed over 5 ms after it was due has a start lag of at least that, and no more than its
    /// latency: answered, or failed as it was handed over (a refused connection ends in the same turn).
    @Test func theStartLagRunsFromTheIntendedStartToTheHandOver() throws {
        let server = try ScriptedServer([.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")])
        let answering = try Self.client(server.port, backend: .platformDefault)
        let refusedPort = try ScriptedServer([])
        let port = refusedPort.port
        refusedPort.stop()
        let refusing = try Self.client(port, backend: .platformDefault)
        for client in [answering, refusing] {
            let due = MonotonicClock.now() - 5_000_000
            let completion = client.exchange(
                ClientRequest(
                    tag: RequestTag(endpoint: .config), method: "GET", path: "/", host: client.host,
                    intendedStart: due))
            #expect(completion.intendedStart == due)
            #expect(completion.submittedAt >= due + 5_000_000)
            #expect(completion.finishedAt >= completion.submittedAt)
            #expect(completion.startLagNanoseconds >= 5_000_000)
            #expect(completion.startLagNanoseconds <= completion.latencyNanoseconds)
        }
        server.stop()
    }

    /// An answer that is in the socket before the client's loop wakes has waited there: its answer lag, from the
    /// kernel's receive stamp, is above 0 and part of its latency. The server answers as it accepts, before the
    /// request is even sent, and the test polls only once that answer is written.
    @Test(.enabled(if: HTTPClient.stampsAnswers))
    func anAnswerThatWaitedHasAnAnswerLag() throws {
        let listener = try LoopbackListener(backlog: 4)
        let written = DispatchSemaphore(value: 0)
        listener.start { fd in
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
            _ = answer.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            written.signal()
            var byte: UInt8 = 0
            while read(fd, &byte, 1) > 0 {}
            close(fd)
        }
        defer { listener.stop() }
        let client = try Self.client(listener.port, backend: .platformDefault)
        client.submit(
            ClientRequest(
                tag: RequestTag(endpoint: .config), method: "GET", path: "/", host: client.host,
                intendedStart: MonotonicClock.now()))
        #expect(written.wait(timeout: .now() + 5) == .success)
        var completion: ClientCompletion?
        while completion == nil { client.poll(timeoutMilliseconds: 50) { completion = $0 } }
        let answered = try #require(completion)
        #expect(Self.body(answered) == "ok")
        #expect(answered.answerLagNanoseconds > 0)
        #expect(answered.answerLagNanoseconds <= answered.latencyNanoseconds)
    }

    @Test func garbageIsMalformed() throws {
        let server = try ScriptedServer([.sendAndClose("SMTP ready\r\n\r\n")])
        defer { server.stop() }
        let client = try Self.client(server.port, backend: .platformDefault)
        let garbage = Self.get(client)
        guard case .failure(let failure) = garbage.outcome else {
            Issue.record("expected malformed, got \(garbage.outcome)")
            return
        }
        #expect(failure == .malformed)
    }
}
