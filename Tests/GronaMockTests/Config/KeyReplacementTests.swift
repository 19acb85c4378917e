import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// A key file replaced under the same id is a new revision, signed by the new key: the stored signature of
/// the old key must not keep being served.
@Suite("Replacing a key file")
struct KeyReplacementTests {
    @Test("a config key file replaced under the same kid gives a new revision that verifies with the new key")
    func replacedKeyFile() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let before = try Control.configuration(server.port, "shop")
            let replacement = try P256SigningKey.generate()
            try FileSystem.write(
                Array(try replacement.pkcs8PEM().utf8), to: fixture.keys.appendingPathComponent("cfg-1.pem").path,
                mode: 0o600)
            // The key store and the revision change one after the other: a read in between may not verify.
            #expect(
                eventually { ((try? Control.configuration(server.port, "shop"))?.revision ?? 0) > before.revision },
                "no new revision after the key file changed")
            // Once changed, the served revision verifies with the published keys (it throws if not).
            _ = try Control.configuration(server.port, "shop")
            let jwks = try JSONParser().parse(
                try fetch(server.port, "GET /v1/mobile/workspaces/shop/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n").body)
            let published = (jwks["keys"]?.arrayValue ?? []).first { $0["kid"]?.stringValue == "cfg-1" }
            #expect(published?["x"]?.stringValue == Base64.urlEncode(replacement.publicKey.x))
        }
    }
}
