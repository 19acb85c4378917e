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

/// SNI (RFC 6066 §3): the ClientHello names the URL's host when it is a name, and names nothing when it is an
/// IP address ("Literal IPv4 and IPv6 addresses are not permitted in HostName"). Read from the bytes a server
/// receives.
@Suite struct TLSServerNameTests {
    final class Captured: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        func set(_ value: [UInt8]) { lock.withLock { bytes = value } }
        var value: [UInt8] { lock.withLock { bytes } }
    }

    @Test(arguments: [("localhost", true), ("127.0.0.1", false)])
    func theHostIsSentAsServerNameUnlessItIsAnAddress(host: String, sent: Bool) throws {
        let listener = try LoopbackListener(backlog: 4)
        defer { listener.stop() }
        let captured = Captured()
        listener.start { fd in
            defer { close(fd) }
            var hello: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            // The record's header says how long the ClientHello is (RFC 8446 §5.1).
            while hello.count < 5 || hello.count < 5 + (Int(hello[3]) << 8 | Int(hello[4])) {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                hello += buffer[..<count]
            }
            captured.set(hello)
        }
        let client = try HTTPClient(
            HTTPClient.Configuration(
                host: host, port: listener.port, maxConnections: 1, timeout: .seconds(5),
                tls: try TLSClientContext(caFile: nil)))
        let completion = client.exchange(
            ClientRequest(
                tag: RequestTag(endpoint: nil), method: "GET", path: "/", host: client.host,
                intendedStart: MonotonicClock.now()))
        guard case .failure(.tlsHandshake) = completion.outcome else {
            Issue.record("\(host): \(completion.outcome) (does \(host) resolve to 127.0.0.1 here?)")
            return
        }
        let hello = captured.value
        #expect(hello.first == 0x16, "not a handshake record: \(hello.prefix(8))")
        let name = Array(host.utf8)
        let named =
            hello.count >= name.count
            && (0...(hello.count - name.count)).contains {
                Array(hello[$0..<$0 + name.count]) == name
            }
        #expect(named == sent, "\(host): the ClientHello \(sent ? "does not carry" : "carries") it")
    }
}
