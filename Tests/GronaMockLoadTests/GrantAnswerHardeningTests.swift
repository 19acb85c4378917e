import GronaMock
import GronaMockJSON
import Testing

@testable import GronaMockLoad

/// `POST /v1/mobile/grants` answered with far more grants than a shopper can be shown: each is an ECDSA
/// verification on the run's one thread, and every install kept every one it verified.
@Suite struct GrantAnswerHardeningTests {
    @Test func anInstallVerifiesAndHoldsABoundedNumberOfGrantsPerAnswer() throws {
        let key = try P256SigningKey.generate()
        let signer = NamedSigningKey(kid: "h1", key: key)
        let service = try HostileService(key: key) { request in
            guard request.path == "/v1/mobile/grants" else {
                let count = HostileService.eventIDs(request.body).count
                return HostileService.response(200, "{\"accepted\":\(count),\"duplicates\":0,\"rejected\":[]}")
            }
            guard let customer = (try? JSONParser().parse(request.body))?["customerID"]?.stringValue else {
                return HostileService.response(400, "{}")
            }
            let now = WallClock.milliseconds() / 1000
            let tokens = (0..<300).compactMap { number -> String? in
                let claims = GrantClaims(
                    issuer: "h", audience: "hostile-w", subject: customer, grantID: "g\(number)", issuedAt: now,
                    notBefore: now - 10, expiresAt: 253_402_300_799, campaignID: "c\(number)", variantID: "v1",
                    placement: "home_top", treatment: Treatment(type: .percentOff, valueMilli: 100), demo: false)
                return try? JWSSigner.compact(payload: claims.json, type: .grant, signer: signer)
            }
            let body = "{\"grants\":[" + tokens.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
            return HostileService.response(200, body)
        }
        defer { service.stop() }
        var settings = service.settings(tag: "gr")
        settings.secretKey = "sk_hostile"
        settings.identified = 1
        let runner = try FleetRunner(settings: settings)
        let result = runner.run()
        #expect(result.statistics[.grants].statuses[200, default: 0] > 0)
        #expect(result.statistics.grantsVerified > 0)
        let most = runner.installs.map(\.grants.count).max() ?? 0
        #expect(most > 0)
        // Fewer than the 300 offered, all of which verify.
        #expect(most < 300)
        #expect(most <= GrantCheck.maximumTokens)
        #expect(
            result.statistics.grantsVerified + result.statistics.grantsRejected
                == 300 * result.statistics[.grants].statuses[200, default: 0])
    }
}
