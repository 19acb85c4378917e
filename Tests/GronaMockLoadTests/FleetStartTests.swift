import Testing

@testable import GronaMockLoad

/// What a run checks before its first visit: the configuration it starts from (fetched as an SDK would,
/// with retries), the workspace and the kind of service, and whether `--verify` will be able to check it.
@Suite(.serialized) struct FleetStartTests {
    /// One faulted answer to the run's first fetch stopped the run (exit 1) before any visit; and that fetch
    /// was counted as one of the fleet's verified configurations.
    @Test func oneBadSignatureAtTheStartIsRetriedAndNotCounted() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        try fixture.addFault(#"{"endpoint": "config", "kind": "bad_signature", "count": 1}"#)
        var settings = fixture.settings(tag: "retry")
        settings.secretKey = nil
        let result = try FleetRunner(settings: settings).run()
        let configs = result.statistics[.config]
        #expect(configs.statuses[200, default: 0] > 0)
        #expect(result.statistics.configsVerified == configs.statuses[200, default: 0])
        #expect(result.statistics.configsRejected == 0)
    }

    @Test func aConfigurationThatNeverVerifiesSaysHowOftenAndWhy() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        try fixture.addFault(#"{"endpoint": "config", "kind": "bad_signature", "count": 100}"#)
        do {
            _ = try FleetRunner(settings: fixture.settings(tag: "never"))
            Issue.record("a run started on a configuration that does not verify")
        } catch {
            #expect(error.description.contains("failed 4 times"), "\(error)")
            #expect(error.description.contains("did not verify"), "\(error)")
        }
    }

    @Test func aWorkspaceTheServiceDoesNotServeIsNamed() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        var settings = fixture.settings(tag: "nosuch")
        settings.workspace = "nosuch"
        do {
            _ = try FleetRunner(settings: settings)
            Issue.record("a run started against a workspace that is not served")
        } catch {
            #expect(error.description.hasPrefix("workspace nosuch is not served by http://127.0.0.1:"), "\(error)")
        }
    }

    @Test func aServiceWithoutAJWKSDoesNotLookLikeGrona() throws {
        let service = try ScriptedServer([
            .send("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nhello, world")
        ])
        defer { service.stop() }
        var settings = LoadSettings()
        settings.port = service.port
        do {
            _ = try FleetRunner(settings: settings)
            Issue.record("a run started against a service without a JWKS")
        } catch {
            #expect(error.description.contains("does not look like a Grona service"), "\(error)")
        }
    }

    /// `--verify` is tried before the run: a missing or refused token, or a service without `/_mock`, is a
    /// usage error that says which.
    @Test(
        arguments: [
            (401, nil, "give --admin-token"), (401, "wrong", "refused the admin token"),
            (404, nil, "--verify needs a grona-mock"), (200, nil, "--verify needs a grona-mock"),
        ] as [(Int, String?, String)])
    func verifyIsCheckedBeforeTheRun(status: Int, token: String?, message: String) throws {
        let service = try HostileService { _ in HostileService.response(status, "ok") }
        defer { service.stop() }
        var settings = service.settings(tag: "pre")
        settings.adminToken = token
        do {
            try RunVerifier.checkAvailable(settings)
            Issue.record("--verify was found possible against a service answering \(status)")
        } catch {
            #expect(error.isUsage)
            #expect(error.description.contains(message), "\(error)")
            #expect(!error.description.contains("--verify: --verify"))
        }
    }

    @Test func verifyIsPossibleAgainstAGronaMock() throws {
        let fixture = try LoadFixture()
        defer { fixture.stop() }
        try RunVerifier.checkAvailable(fixture.settings(tag: "ok"))
    }
}
