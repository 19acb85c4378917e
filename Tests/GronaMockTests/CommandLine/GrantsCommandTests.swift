import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

@Suite("grona-mock grants")
struct GrantsCommandTests {
    @Test("grants issue prints tokens and claims; grants verify accepts them with the workspace or its JWKS")
    func issueAndVerify() throws {
        let fixture = try MockFixture.standard()
        let common = ["--workspaces", fixture.workspaces.path, "--keys", fixture.keys.path]
        let customer = GrantsEndpointTests.customer(offer: true)
        let issued = try BinaryRunner.run(["grants", "issue", "--workspace", "shop", "--customer", customer] + common)
        #expect(issued.status == 0, "\(issued.stderr)")
        #expect(issued.stdout.hasPrefix("1 grant for \(customer) in shop"))
        #expect(issued.stdout.contains(#""campaignID":"checkout-10-off","variantID":"ten-off""#))
        let token = try #require(issued.stdout.split(separator: "\n").first { $0.hasPrefix("eyJ") }).description

        let byWorkspace = try BinaryRunner.run(["grants", "verify", token, "--workspace", "shop"] + common)
        #expect(byWorkspace.status == 0)
        #expect(byWorkspace.stdout.contains("valid grant grt_"))

        let jwks = try fixture.withServer { server in
            try fetch(server.port, "GET /v1/mobile/workspaces/shop/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n").body
        }
        let jwksFile = fixture.root.appendingPathComponent("jwks.json")
        try Data(jwks).write(to: jwksFile)
        let byFile = try BinaryRunner.run(["grants", "verify", token, "--jwks", jwksFile.path, "--audience", "shop"])
        #expect(byFile.status == 0, "\(byFile.stdout)\(byFile.stderr)")

        try fixture.withServer { server in
            let url = "\(server.url)/v1/mobile/workspaces/shop/jwks.json"
            let byURL = try BinaryRunner.run(["grants", "verify", token, "--jwks", url])
            #expect(byURL.status == 0, "\(byURL.stdout)\(byURL.stderr)")
        }
    }

    @Test("grants verify says exactly why a grant fails")
    func failures() throws {
        let fixture = try MockFixture.standard()
        let common = ["--workspaces", fixture.workspaces.path, "--keys", fixture.keys.path]
        let issued = try BinaryRunner.run(
            ["grants", "issue", "--workspace", "shop", "--customer", GrantsEndpointTests.customer(offer: true)] + common
        )
        let token = try #require(issued.stdout.split(separator: "\n").first { $0.hasPrefix("eyJ") }).description
        let tampered = flippingBit(of: token, at: token.count - 5)
        let bad = try BinaryRunner.run(["grants", "verify", tampered, "--workspace", "shop"] + common)
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("invalid: the signature does not verify"))
        #expect(!bad.stdout.contains(tampered))
        let wrongAudience = try BinaryRunner.run(
            ["grants", "verify", token, "--workspace", "shop", "--audience", "elsewhere"] + common)
        #expect(wrongAudience.status == 1)
        #expect(wrongAudience.stdout.contains(#"aud is "shop", not the workspace "elsewhere""#))
        let noKeys = try BinaryRunner.run(["grants", "verify", token])
        #expect(noKeys.status == 64)
    }
}
