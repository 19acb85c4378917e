import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@Suite("grona-mock keys and config")
struct KeysAndConfigCommandTests {
    @Test("keys generate writes a private PKCS#8 file, prints its public half, and never overwrites")
    func generate() throws {
        let fixture = try MockFixture()
        let first = try BinaryRunner.run(["keys", "generate", "new-key-1", "--keys", fixture.keys.path])
        #expect(first.status == 0)
        let path = fixture.keys.appendingPathComponent("new-key-1.pem").path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let key = try P256SigningKey(pem: pem)
        #expect(first.stdout.contains("spki  \(key.publicKey.spkiBase64)"))
        #expect(!first.stdout.contains("PRIVATE"))

        let again = try BinaryRunner.run(["keys", "generate", "new-key-1", "--keys", fixture.keys.path])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == pem)

        let bad = try BinaryRunner.run(["keys", "generate", "../escape", "--keys", fixture.keys.path])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("is not a key id"))
    }

    @Test("keys list prints every kid with its SPKI and JWK thumbprint; --format json adds the JWK")
    func list() throws {
        let fixture = try MockFixture()
        let key = try fixture.addKey("cfg-1")
        let text = try BinaryRunner.run(["keys", "list", "--keys", fixture.keys.path])
        #expect(text.status == 0)
        let jwk = JWK(kid: "cfg-1", publicKey: key.publicKey)
        let row = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("cfg-1 ") })
        #expect(row.contains(key.publicKey.spkiBase64))
        #expect(row.hasSuffix(jwk.thumbprint))
        let json = try BinaryRunner.run(["keys", "list", "--keys", fixture.keys.path, "--format", "json"])
        let entry = try #require(try JSONParser().parse(Array(json.stdout.utf8))["keys"]?[0])
        #expect(entry["spki"]?.stringValue == key.publicKey.spkiBase64)
        #expect(entry["jwk"]?["x"]?.stringValue == jwk.x)
    }

    @Test("config validate lists each problem with its path and exits 1 on errors, 0 on warnings alone")
    func validate() throws {
        let fixture = try MockFixture.standard()
        let good = try BinaryRunner.run(
            ["config", "validate", "--workspaces", fixture.workspaces.path, "--keys", fixture.keys.path])
        #expect(good.status == 0)
        #expect(good.stdout.contains("shop.json: ok (2 campaigns)"))
        try fixture.writeWorkspace(
            "broken", MockFixture.workspace("broken").replacingOccurrences(of: "home_top", with: "home_topp"))
        let bad = try BinaryRunner.run(
            ["config", "validate", "--workspaces", fixture.workspaces.path, "--keys", fixture.keys.path])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("broken.json: would not be served (2 campaigns), 1 error"))
        #expect(bad.stdout.contains(#"error: campaigns[0].placement: unknown placement "home_topp""#))
    }

    @Test("config sign writes what the server serves; config verify checks each signature with the given keys")
    func signAndVerify() throws {
        let fixture = try MockFixture.standard()
        let output = fixture.root.appendingPathComponent("grona-config.json").path
        let common = [
            "--workspaces", fixture.workspaces.path, "--keys", fixture.keys.path, "--db", fixture.database.path,
        ]
        let signed = try BinaryRunner.run(["config", "sign", "shop", "-o", output] + common)
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(signed.stderr.contains("signed shop revision 1 with cfg-1, cfg-2"))
        let bundled = Array(try Data(contentsOf: URL(fileURLWithPath: output)))
        let served = try fixture.withServer { server in
            try fetch(server.port, "GET /v1/mobile/workspaces/shop/config HTTP/1.1\r\nHost: x\r\n\r\n").body
        }
        #expect(served == bundled)

        let keys = try fixture.publicKeys()
        let spki = { (kid: String) in keys[kid]?.spkiBase64 ?? "" }
        let verified = try BinaryRunner.run(
            ["config", "verify", output, "--key", "cfg-1=\(spki("cfg-1"))", "--key", "cfg-2=\(spki("cfg-2"))"])
        #expect(verified.status == 0)
        #expect(verified.stdout.contains("signature cfg-1: valid"))
        #expect(verified.stdout.contains("signature cfg-2: valid"))
        #expect(verified.stdout.contains(#"workspaceKey "shop", revision 1"#))

        let wrong = try BinaryRunner.run(["config", "verify", output, "--key", "cfg-1=\(spki("grt-1"))"])
        #expect(wrong.status == 1)
        #expect(wrong.stdout.contains("signature cfg-1: INVALID: the signature does not verify"))
        #expect(wrong.stdout.contains("signature cfg-2: not checked (no key given for this kid)"))
    }

    @Test("the committed acme-market workspace signs with the committed keys and verifies with keys list's output")
    func committedWorkspace() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let fixture = try MockFixture()
        let output = fixture.root.appendingPathComponent("grona-config.json").path
        let signed = try BinaryRunner.run(
            ["config", "sign", "acme-market", "-o", output, "--db", fixture.database.path], directory: root)
        #expect(signed.status == 0, "\(signed.stderr)")
        let list = try BinaryRunner.run(["keys", "list", "--format", "json"], directory: root)
        let keys = try #require(try JSONParser().parse(Array(list.stdout.utf8))["keys"]?.arrayValue)
        // Only the workspace's own config keys: keys/ may hold others (a user's `keys generate`).
        let configKeys = ["acme-market-2026-10", "acme-market-2027-01"]
        let arguments = keys.compactMap { key -> [String]? in
            guard let kid = key["kid"]?.stringValue, let spki = key["spki"]?.stringValue, configKeys.contains(kid)
            else { return nil }
            return ["--key", "\(kid)=\(spki)"]
        }.flatMap { $0 }
        #expect(arguments.count == 4)
        let oneKey = try BinaryRunner.run(["config", "verify", output] + Array(arguments.prefix(2)))
        #expect(oneKey.status == 0, "one key given, one signature checked: \(oneKey.stdout)")
        #expect(oneKey.stdout.contains("signature acme-market-2027-01: not checked (no key given for this kid)"))
        let verified = try BinaryRunner.run(["config", "verify", output] + arguments)
        #expect(verified.status == 0, "\(verified.stdout)")
        #expect(verified.stdout.contains("signature acme-market-2026-10: valid"))
        #expect(verified.stdout.contains("signature acme-market-2027-01: valid"))
    }
}
