import Foundation
import GronaMockPlatform
import GronaMockTLSCore
import Testing

@testable import GronaMockLoad

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Servers that accept an HTTPS connection and then do not speak TLS: the request fails with `tls_handshake`
/// and a reason, never a hang (a silent one at the request's deadline) and never a crash.
@Suite struct TLSHandshakeHardeningTests {
    enum Peer: String, CaseIterable, Sendable {
        /// Reads the ClientHello and answers in plain HTTP, keeping the connection open.
        case plainHTTP
        /// Reads the ClientHello and closes.
        case closesMidHandshake
        /// Reads the ClientHello and says nothing.
        case silent
    }

    @Test(arguments: Peer.allCases) func aPeerThatDoesNotSpeakTLSFailsTheRequest(_ peer: Peer) throws {
        let listener = try LoopbackListener(backlog: 8)
        defer { listener.stop() }
        listener.start { fd in
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            guard recv(fd, &buffer, buffer.count, 0) > 0 else { return }
            switch peer {
            case .plainHTTP:
                let answer = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
                _ = send(fd, answer, answer.count, 0)
                // Open until the client goes: the failure must come of the bytes, not of a close.
                while recv(fd, &buffer, buffer.count, 0) > 0 {}
            case .closesMidHandshake:
                return
            case .silent:
                while recv(fd, &buffer, buffer.count, 0) > 0 {}
            }
        }
        let client = try HTTPClient(
            HTTPClient.Configuration(
                host: "127.0.0.1", port: listener.port, maxConnections: 1, timeout: .seconds(1),
                tls: try TLSClientContext(caFile: nil)))
        let completion = client.exchange(
            ClientRequest(
                tag: RequestTag(endpoint: nil), method: "GET", path: "/", host: client.host,
                intendedStart: MonotonicClock.now()))
        guard case .failure(let failure) = completion.outcome else {
            Issue.record("\(peer): an answer came: \(completion.outcome)")
            return
        }
        #expect(failure == .tlsHandshake, "\(peer)")
        let description = client.failureDescription(of: completion)
        #expect(description.contains("[tls_handshake]"), "\(peer): \(description)")
        switch peer {
        case .plainHTTP: #expect(description.contains("wrong version number"), "\(description)")
        case .closesMidHandshake: #expect(description.contains("closed"), "\(description)")
        case .silent: #expect(description.contains("did not finish within --timeout"), "\(description)")
        }
        #expect(client.inFlight == 0)
    }
}
