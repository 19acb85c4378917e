import Foundation
import GronaMockPlatform
import GronaMockTLSCore
import Testing

@testable import GronaMockLoad

/// `grona-mock load` against an `https://` target (issue 32): a grona-mock in this process serving HTTPS from
/// a local CA. With that CA given (`--cacert`) a run passes and `--verify` checks it over HTTPS too; without it
/// (the system store does not know the CA) or at an address the certificate does not name, the run is refused
/// before its first visit with the failure's stable code. `.serialized`: each starts a server, on two cores.
@Suite(.serialized) struct HTTPSLoadTests {
    @Test func aRunOverHTTPSWithTheCAPassesAndVerifies() throws {
        let fixture = try HTTPSFixture()
        defer { fixture.stop() }
        let settings = try fixture.settings(tag: "https", caFile: fixture.caFile)
        #expect(settings.url == "https://127.0.0.1:\(fixture.server.port)")
        try RunVerifier.checkAvailable(settings)
        let result = try FleetRunner(settings: settings).run()
        let verification = try RunVerifier(settings: settings, result: result).verify()
        let statistics = result.statistics
        #expect(statistics.visitsScheduled == 100)
        #expect(statistics.eventsLogged > 0)
        #expect(statistics.eventsAcknowledged == statistics.eventsLogged)
        #expect(statistics.grantsVerified > 0)
        #expect(statistics.http.failures.isEmpty, "\(statistics.http.failures)")
        #expect(verification.acknowledged == statistics.eventsLogged)
        #expect(verification.stored == verification.acknowledged)
        #expect(verification.lost == 0)
        #expect(verification.passed, "\(verification)")
    }

    /// Each version alone, as a staging balancer that speaks only one would: the handshakes differ (TLS 1.3
    /// sends its session tickets after the handshake, in records the client reads with its first answers).
    @Test(arguments: [TLSClientContext.ProtocolVersions.onlyTLS12, .onlyTLS13])
    func aRunOverEachTLSVersionPassesAndVerifies(_ versions: TLSClientContext.ProtocolVersions) throws {
        let fixture = try HTTPSFixture()
        defer { fixture.stop() }
        var settings = try fixture.settings(tag: "tls-\(versions)", caFile: fixture.caFile)
        settings.tls = try TLSClientContext(caFile: fixture.caFile, versions: versions)
        let result = try FleetRunner(settings: settings).run()
        let verification = try RunVerifier(settings: settings, result: result).verify()
        #expect(result.statistics.eventsLogged > 0)
        #expect(result.statistics.eventsAcknowledged == result.statistics.eventsLogged)
        #expect(result.statistics.http.failures.isEmpty, "\(result.statistics.http.failures)")
        #expect(verification.lost == 0)
        #expect(verification.passed, "\(verification)")
    }

    @Test func withoutTheCATheSystemStoreRefusesTheServer() throws {
        let fixture = try HTTPSFixture()
        defer { fixture.stop() }
        let settings = try fixture.settings(tag: "unknown-ca", caFile: nil)
        let error = try #require(throws: LoadRunError.self) { try FleetRunner(settings: settings) }
        #expect(error.description.contains("[tls_unknown_ca]"), "\(error)")
        #expect(error.description.contains("--cacert"), "\(error)")
        // --verify's check before the run says the same.
        let verify = try #require(throws: VerifyUnavailable.self) { try RunVerifier.checkAvailable(settings) }
        #expect(verify.description.contains("[tls_unknown_ca]"), "\(verify)")
    }

    /// The certificate names 127.0.0.1, ::1 and localhost; the server listens on 127.0.0.2 (Linux routes all of
    /// 127/8 to loopback), so the address the URL names is not one the certificate carries.
    @Test(.enabled(if: isLinux)) func anAddressTheCertificateDoesNotNameIsRefused() throws {
        let fixture = try HTTPSFixture(host: "127.0.0.2")
        defer { fixture.stop() }
        let settings = try fixture.settings(tag: "mismatch", caFile: fixture.caFile)
        let error = try #require(throws: LoadRunError.self) { try FleetRunner(settings: settings) }
        #expect(error.description.contains("[tls_name_mismatch]"), "\(error)")
    }

    @Test func aCAFileThatCannotBeUsedIsAUsageErrorWithItsCode() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grona-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing.pem").path
        let notPEM = directory.appendingPathComponent("not.pem").path
        try Data("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n".utf8)
            .write(to: URL(fileURLWithPath: notPEM))
        let unreadable = try #require(throws: LoadSettings.OptionError.self) {
            try LoadSettings.tlsContext(url: "https://127.0.0.1:1", caFile: missing)
        }
        #expect(unreadable.description.contains("[cacert_unreadable]"), "\(unreadable)")
        let invalid = try #require(throws: LoadSettings.OptionError.self) {
            try LoadSettings.tlsContext(url: "https://127.0.0.1:1", caFile: notPEM)
        }
        #expect(invalid.description.contains("[cacert_invalid]"), "\(invalid)")
        #expect(throws: LoadSettings.OptionError.self) {
            try LoadSettings.tlsContext(url: "http://127.0.0.1:1", caFile: notPEM)
        }
        #expect(try LoadSettings.tlsContext(url: "http://127.0.0.1:1", caFile: nil) == nil)
    }
}

let isLinux: Bool = {
    #if os(Linux)
    true
    #else
    false
    #endif
}()
