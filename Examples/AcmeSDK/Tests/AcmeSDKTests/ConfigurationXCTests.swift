import AcmeSDK
import Foundation
import GronaMockTesting
import XCTest

/// The XCTest way: a mock per test case class instance, started in `setUp` and stopped in `tearDown`.
final class ConfigurationXCTests: XCTestCase {
    var mock: GronaMockTestServer!
    var workspace: GronaMockWorkspace!

    override func setUp() async throws {
        mock = try await GronaMockTestServer.start()
        workspace = try await mock.isolatedWorkspace()
    }

    override func tearDown() async throws {
        try await workspace.remove()
        await mock.stop()
    }

    func testTheSDKFetchesAConfigurationThatVerifies() async throws {
        // The SDK's own types, next to the test kit's, with no renaming.
        let sdkWorkspace = Workspace(key: workspace.key, baseURL: mock.baseURL)
        // The SDK pins the keys the mock's sdk-options name, in its own `CertificateAuthority` type, spelt in a
        // type position, where a second one of that name in the kit is "ambiguous for type lookup".
        let options = try await workspace.sdkOptions()
        let pinning: CertificateAuthority = CertificateAuthority(pins: options.configPins)
        XCTAssertFalse(pinning.accepts(keyID: "none", spki: ""))
        let client = GronaClient(workspace: sdkWorkspace)
        let (_, etag) = try await client.fetchConfiguration()
        let verified = try await workspace.verifiedConfiguration()
        XCTAssertTrue(verified.isValid)
        XCTAssertEqual(Set(options.configPins.keys), Set(verified.verifiedKeyIDs))
        // The SDK asked for gzip, so its strong ETag is the gzip representation's, not the identity one's.
        let etags = try await workspace.configurationETags()
        XCTAssertNotNil(etag)
        XCTAssertEqual(etag, etags.gzip)
        XCTAssertEqual(verified.etag, etags.identity)
        let campaigns: [Campaign] = try await client.campaigns()
        XCTAssertTrue(campaigns.contains { $0.id == "home-hero" })
    }

    func testKillingACampaignServesANewRevision() async throws {
        let client = GronaClient(workspace: Workspace(key: workspace.key, baseURL: mock.baseURL))
        let (_, before) = try await client.fetchConfiguration()
        let revision = try await workspace.killCampaign("home-hero")
        let (_, after) = try await client.fetchConfiguration()
        XCTAssertNotEqual(before, after)
        let verified = try await workspace.verifiedConfiguration()
        XCTAssertEqual(verified.revision, revision)
        XCTAssertTrue(verified.isValid)
        let logger = Logger(subsystem: "tests")
        logger.log("revision \(revision)")
    }

    func testGrantsVerifyAgainstTheJWKS() async throws {
        var grants: [GronaMockGrant] = []
        for index in 0..<20 { grants += try await workspace.grants(for: "cust_\(index)") }
        XCTAssertFalse(grants.isEmpty)
    }
}
