import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTLS
import GronaMockTLSCore
import Testing

@testable import GronaMockLoad

/// Bytes a TLS session decrypted and kept are read even when the socket has nothing more: an answer whose
/// last record was read in part when it had to wait for answer memory arrives whole once the memory is free,
/// not at its deadline (no readiness event announces what OpenSSL holds).
@Suite struct TLSBufferedAnswerTests {
    /// Answers of at most 64 KiB: a whole grant is 128 KiB with a head, and the budget keeps one and two small.
    static let limit = 64 * 1024
    static let budget = 128 * 1024 + 32 * 1024

    @Test func anAnswerLeftInTheTLSSessionWhileItWaitsForMemoryArrivesWhole() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grona-tlsbuf-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = TLSDirectory(directory.appendingPathComponent("tls").path)
        _ = try LocalAuthority.initialize(tls, names: [], machineNames: false)
        let server = try TLSRecordServer(
            listener: TLSListener(certificateFile: tls.serverCertificate, keyFile: tls.serverKey, logger: .silent))
        defer { server.stop() }
        let client = try HTTPClient(
            HTTPClient.Configuration(
                host: "127.0.0.1", port: server.port, maxConnections: 2, timeout: .seconds(15),
                answerMemory: Self.budget, largestAnswer: Self.limit,
                tls: try TLSClientContext(caFile: tls.authorityCertificate)))
        var done: [ClientCompletion] = []
        func request() -> ClientRequest {
            ClientRequest(
                tag: RequestTag(endpoint: nil), method: "GET", path: "/", host: client.host,
                intendedStart: MonotonicClock.now(), answerLimit: Self.limit)
        }
        func poll(until condition: () -> Bool) -> Bool {
            let deadline = MonotonicClock.now() + 20_000_000_000
            while !condition() && MonotonicClock.now() < deadline {
                client.poll(timeoutMilliseconds: 20) { done.append($0) }
            }
            return condition()
        }
        // The first answer grows to a whole grant and holds it: the server keeps its end back.
        client.submit(request())
        #expect(poll { client.answerMemoryPeak >= 128 * 1024 })
        // The second reads its first record, half of its last, and waits to grow with the rest in OpenSSL.
        client.submit(request())
        #expect(poll { client.answerMemoryWaits > 0 })
        server.finishFirst()
        #expect(poll { done.count == 2 })
        for completion in done {
            guard case .response(let head, let body) = completion.outcome else {
                Issue.record("no answer: \(completion.outcome)")
                continue
            }
            #expect(head.status == 200)
            #expect(body.count == 24_000)
        }
    }
}

/// An HTTPS server on blocking sockets that writes each answer as TLS records of chosen sizes. The first
/// connection's answer (24,000 bytes in two chunks) ends only on `finishFirst()`; every later one is a record
/// with the head and 8,000 bytes, then one of 16,000 bytes and the end, nearly a whole record.
final class TLSRecordServer: @unchecked Sendable {
    private let listener: LoopbackListener
    private let lock = NSLock()
    private var accepted = 0
    private let release = DispatchSemaphore(value: 0)
    let port: Int

    init(listener tls: TLSListener) throws {
        listener = try LoopbackListener(backlog: 8)
        port = listener.port
        listener.start { [self] fd in
            guard let transport = tls.makeTransport(fd: fd) else { return }
            defer { transport.close(cut: false) }
            let first = lock.withLock {
                accepted += 1
                return accepted == 1
            }
            guard Self.readRequest(transport) else { return }
            let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            if first {
                let chunk = "2ee0\r\n" + String(repeating: "a", count: 12_000) + "\r\n"
                guard Self.write(transport, head + chunk), Self.write(transport, chunk) else { return }
                release.wait()
                _ = Self.write(transport, "0\r\n\r\n")
            } else {
                let opening = head + "1f40\r\n" + String(repeating: "b", count: 8_000) + "\r\n"
                let closing = "3e80\r\n" + String(repeating: "c", count: 16_000) + "\r\n0\r\n\r\n"
                guard Self.write(transport, opening), Self.write(transport, closing) else { return }
            }
            var buffer = [UInt8](repeating: 0, count: 1024)
            // Until the client goes.
            while case .bytes = buffer.withUnsafeMutableBytes({ transport.receive(into: $0) }) {}
        }
    }

    func finishFirst() { release.signal() }

    func stop() {
        release.signal()
        listener.stop()
    }

    private static func readRequest(_ transport: any ConnectionTransport) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var request: [UInt8] = []
        while !request.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            switch buffer.withUnsafeMutableBytes({ transport.receive(into: $0) }) {
            case .bytes(let count, _): request += buffer[..<count]
            case .wouldBlock: continue
            case .end, .failed, .refuse: return false
            }
        }
        return true
    }

    /// One TLS record (up to 16 KiB): one write of the transport, on a blocking socket.
    private static func write(_ transport: any ConnectionTransport, _ text: String) -> Bool {
        var bytes = Array(text.utf8)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { scratch.deallocate() }
        return bytes.withUnsafeMutableBytes { raw in
            var vectors = [iovec(iov_base: raw.baseAddress, iov_len: raw.count)]
            return (try? transport.send(&vectors, scratch: scratch)) == raw.count
        }
    }
}
