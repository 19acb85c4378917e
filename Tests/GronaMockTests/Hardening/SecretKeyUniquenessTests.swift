import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// A secret key picks the workspace on the grants endpoint, so it is unique across every served workspace
/// (files, run-time, clones), whatever `allowInvalid` says.
@Suite("Secret keys are unique across served workspaces")
struct SecretKeyUniquenessTests {
    static let shopSecret = "sk_test_shop_secret"

    @Test("PUT and clone refuse another workspace's secret key with 409 secret_key_in_use, even allowInvalid")
    func runTimeChanges() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let stolen = MockFixture.workspace("thief", secret: Self.shopSecret)
            for target in ["/_mock/workspaces/thief", "/_mock/workspaces/thief?allowInvalid=true"] {
                let response = try fetch(server.port, Control.request("PUT", target, body: stolen))
                #expect(response.status == 409, "\(target)")
                #expect(EventsAPI.errorCode(response) == "secret_key_in_use")
                #expect(!response.text.contains(Self.shopSecret), "the error must not echo the secret")
            }
            let clone = try fetch(
                server.port,
                Control.request(
                    "POST", "/_mock/workspaces/shop/clone",
                    body: "{\"workspaceKey\":\"shop-2\",\"secretKey\":\"\(Self.shopSecret)\"}"))
            #expect(clone.status == 409)
            #expect(EventsAPI.errorCode(clone) == "secret_key_in_use")
            // Neither was served, and the grants still go to shop.
            #expect(server.workspaces.entry(for: "thief") == nil)
            #expect(server.workspaces.entry(for: "shop-2") == nil)
            #expect(server.workspaces.entry(forSecret: Self.shopSecret)?.workspace.key == "shop")
            // A workspace may keep its own secret when it is replaced.
            let own = try fetch(
                server.port,
                Control.request(
                    "PUT", "/_mock/workspaces/shop", body: MockFixture.workspace("shop", bannerTitle: "New")))
            #expect(own.status == 200)
        }
    }

    @Test("two files sharing a secret: the later one by name is refused with an error naming both files")
    func filesSharingASecret() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace("zeta", MockFixture.workspace("zeta", secret: Self.shopSecret))
        try fixture.writeWorkspace("alpha", MockFixture.workspace("alpha", secret: Self.shopSecret))
        try fixture.withServer { server in
            #expect(server.workspaces.entry(forSecret: Self.shopSecret)?.workspace.key == "alpha")
            #expect(server.workspaces.entry(for: "shop") == nil)
            #expect(server.workspaces.entry(for: "zeta") == nil)
            let errors = server.workspaces.loadErrors
            for refused in ["shop.json", "zeta.json"] {
                let error = errors.first { $0.file.hasSuffix(refused) }
                #expect(error?.message.contains("alpha.json") == true, "\(refused): \(String(describing: error))")
                #expect(error?.message.contains(Self.shopSecret) == false)
            }
            let health = try JSONParser().parse(try fetch(server.port, Control.request("GET", "/_mock/health")).body)
            #expect(health["workspaces"]?["errors"]?.arrayValue?.count == 2)
        }
    }

    @Test("a file replaced by another with the same secret in one step serves the new one (found in review)")
    func renamedFile() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace("alpha", MockFixture.workspace("alpha", secret: "sk_test_moving_secret"))
        try fixture.withServer { server in
            #expect(server.workspaces.entry(for: "alpha") != nil)
            try fixture.writeWorkspace("beta", MockFixture.workspace("beta", secret: "sk_test_moving_secret"))
            try FileManager.default.removeItem(at: fixture.workspaces.appendingPathComponent("alpha.json"))
            #expect(eventually { server.workspaces.entry(for: "beta") != nil })
            #expect(server.workspaces.entry(for: "alpha") == nil)
            #expect(server.workspaces.entry(forSecret: "sk_test_moving_secret")?.workspace.key == "beta")
        }
    }

    @Test("a file refused for another's secret is served once that other file lets the secret go")
    func conflictResolved() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace("alpha", MockFixture.workspace("alpha", secret: "sk_test_shared_secret"))
        try fixture.writeWorkspace("beta", MockFixture.workspace("beta", secret: "sk_test_shared_secret"))
        try fixture.withServer { server in
            #expect(server.workspaces.entry(for: "beta") == nil)
            try fixture.writeWorkspace("alpha", MockFixture.workspace("alpha", secret: "sk_test_alpha_own"))
            #expect(eventually { server.workspaces.entry(for: "beta") != nil })
            #expect(server.workspaces.loadErrors.isEmpty)
        }
    }
}
