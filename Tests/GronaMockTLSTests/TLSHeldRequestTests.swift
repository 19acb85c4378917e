import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTLS
import GronaMockTestSupport
import Testing

/// Held requests (`HTTPResponder.hold`) over TLS: a client that goes during the hold, with close_notify or
/// without, or with a reset, frees its connection at once through the transport's close, and the hold is
/// released once, as over plain HTTP (`HeldRequestTests`).
@Suite("TLS clients that go during a held request")
struct TLSHeldRequestTests {
    enum Ending: CaseIterable, CustomStringConvertible {
        /// close_notify, then a FIN.
        case closeNotify
        /// A FIN with no close_notify: a TLS client that just closes its socket.
        case close
        case reset

        func apply(to client: RawClient) {
            switch self {
            case .closeNotify: client.finishSending()
            case .close: client.closeNow()
            case .reset: client.reset()
            }
        }

        var description: String {
            switch self {
            case .closeNotify: "close_notify"
            case .close: "close"
            case .reset: "reset"
            }
        }
    }

    @Test(
        "a TLS client that goes during a hold frees its connection at once, and the hold is released once",
        arguments: PollerBackend.allCases)
    func clientGoesDuringHold(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        let ledger = HoldLedger()
        var configuration = try tlsConfiguration(backend, certificates)
        // Patient: only the client's going can close these connections within the test's deadlines.
        configuration.headerTimeout = .seconds(30)
        configuration.idleTimeout = .seconds(30)
        try withLiveServer(configuration, router: TestRoutes.holding(ledger)) { server in
            for (index, ending) in Ending.allCases.enumerated() {
                let client = try RawClient(port: server.tlsPort, tls: certificates.client)
                try client.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(eventually { ledger.held == index + 1 }, "\(ending): never held")
                ending.apply(to: client)
                #expect(eventually { server.openConnections == 0 }, "\(ending): the connection stayed open")
                #expect(eventually { ledger.released == index + 1 }, "\(ending): the hold was not released")
                client.closeNow()
            }
            ledger.answerAll()
            let client = try RawClient(port: server.tlsPort, tls: certificates.client)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 200)
            #expect(ledger.released == Ending.allCases.count)
        }
    }
}
