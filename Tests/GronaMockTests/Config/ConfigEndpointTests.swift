import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@Suite("GET /v1/mobile/workspaces/{key}/config")
struct ConfigEndpointTests {
    private static let get = "GET /v1/mobile/workspaces/shop/config HTTP/1.1\r\nHost: x\r\n"

    @Test("the document verifies with every configured key, each signature alone, and carries the payload")
    func verifiesWithEveryKey() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try fetch(server.port, Self.get + "\r\n")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/jose+json")
            let keys = try fixture.publicKeys()
            let (payload, checks) = try JWSVerifier.verifyGeneral(response.body, keys: keys, type: .configuration)
            #expect(checks.map(\.kid) == ["cfg-1", "cfg-2"])
            #expect(checks.allSatisfy { $0.isValid })
            for kid in ["cfg-1", "cfg-2"] {
                let alone = try JWSVerifier.verifyGeneral(
                    response.body, keys: [kid: try #require(keys[kid])], type: .configuration)
                let valid = alone.signatures.filter { $0.isValid }.map { $0.kid }
                #expect(valid == [kid])
            }
            let object = try #require(try JSONParser().parse(payload).objectValue)
            #expect(object["schemaVersion"]?.int64Value == 1)
            #expect(object["workspaceKey"]?.stringValue == "shop")
            #expect(object["revision"]?.int64Value == 1)
            let issuedAt = try #require(object["issuedAt"]?.int64Value)
            #expect(abs(issuedAt - Int64(Date().timeIntervalSince1970)) < 60)
            #expect(
                object["campaigns"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [
                    "home-hero", "checkout-10-off",
                ])
            #expect(object["settings"]?["maxComponentsPerScreen"]?.int64Value == 3)
            #expect(object["demoMode"]?.boolValue == false)
        }
    }

    @Test("the ETag is strong and stable, and If-None-Match answers 304 with the same ETag and Cache-Control")
    func etagAndNotModified() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let first = try fetch(server.port, Self.get + "\r\n")
            let second = try fetch(server.port, Self.get + "\r\n")
            let etag = try #require(first.header("ETag"))
            #expect(!etag.hasPrefix("W/"))
            #expect(second.header("ETag") == etag)
            #expect(second.body == first.body)
            #expect(first.header("Cache-Control") == "max-age=60")
            #expect(first.header("Vary") == "Accept-Encoding")
            for condition in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
                let cached = try fetch(server.port, Self.get + "If-None-Match: \(condition)\r\n\r\n")
                #expect(cached.status == 304, "If-None-Match: \(condition)")
                #expect(cached.body.isEmpty)
                #expect(cached.header("ETag") == etag)
                #expect(cached.header("Cache-Control") == "max-age=60")
            }
            let stale = try fetch(server.port, Self.get + "If-None-Match: \"0-stale\"\r\n\r\n")
            #expect(stale.status == 200)
        }
    }

    @Test("gzip when Accept-Encoding allows it: same document, its own ETag, Vary")
    func gzip() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let plain = try fetch(server.port, Self.get + "\r\n")
            let zipped = try fetch(server.port, Self.get + "Accept-Encoding: br;q=1.0, gzip;q=0.8\r\n\r\n")
            #expect(zipped.header("Content-Encoding") == "gzip")
            #expect(zipped.header("Vary") == "Accept-Encoding")
            #expect(zipped.header("ETag") != plain.header("ETag"))
            #expect(try Gzip.decompress(zipped.body, limit: 1 << 20) == plain.body)
            let refused = try fetch(server.port, Self.get + "Accept-Encoding: gzip;q=0, identity\r\n\r\n")
            #expect(refused.header("Content-Encoding") == nil)
            #expect(refused.body == plain.body)
            let cached = try fetch(
                server.port, Self.get + "Accept-Encoding: gzip\r\nIf-None-Match: \(zipped.header("ETag") ?? "")\r\n\r\n"
            )
            #expect(cached.status == 304)
        }
    }

    @Test("HEAD answers with the headers alone; an unknown workspace is 404 unknown_workspace")
    func headAndUnknown() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let head = try fetch(server.port, "HEAD /v1/mobile/workspaces/shop/config HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(head.status == 200)
            #expect(head.header("ETag") != nil)
            let missing = try fetch(server.port, "GET /v1/mobile/workspaces/nope/config HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(missing.status == 404)
            #expect(missing.text.contains("\"code\":\"unknown_workspace\""))
            let hostile = try fetch(
                server.port, "GET /v1/mobile/workspaces/..%2Fkeys/config HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(hostile.status == 404)
        }
    }
}

@Suite("Configuration revisions and hot reload")
struct ConfigRevisionTests {
    private func revision(_ port: Int) throws -> (Int64, [UInt8]) {
        let response = try fetch(port, "GET /v1/mobile/workspaces/shop/config HTTP/1.1\r\nHost: x\r\n\r\n")
        let document = try #require(try JSONParser().parse(response.body).objectValue)
        let payload = try #require(Base64.urlDecode(document["payload"]?.stringValue ?? ""))
        let revision = try #require(try JSONParser().parse(payload)["revision"]?.int64Value)
        return (revision, response.body)
    }

    @Test("an edited file is served under a new revision; a broken edit keeps the last good one serving")
    func editsAndBrokenEdits() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let (first, firstBody) = try revision(server.port)
            try fixture.writeWorkspace("shop", MockFixture.workspace("shop", bannerTitle: "Changed"))
            #expect(try eventually { try revision(server.port).0 == first + 1 })
            let (second, secondBody) = try revision(server.port)
            #expect(secondBody != firstBody)

            try fixture.writeWorkspace(
                "shop", MockFixture.workspace("shop").replacingOccurrences(of: "home_top", with: "home_topp"))
            // Once the watcher has read the broken edit (it reports the file's error), the revision is kept.
            #expect(eventually { !server.workspaces.loadErrors.isEmpty })
            let (kept, keptBody) = try revision(server.port)
            #expect(kept == second)
            #expect(keptBody == secondBody)
            #expect(server.workspaces.entry(for: "shop")?.configuration.revision == second)
        }
    }

    @Test("a revision survives a restart byte for byte, and never goes back")
    func survivesRestart() throws {
        let fixture = try MockFixture.standard()
        let (first, body) = try fixture.withServer { try revision($0.port) }
        let (again, againBody) = try fixture.withServer { try revision($0.port) }
        #expect(again == first)
        #expect(againBody == body)
        try fixture.writeWorkspace("shop", MockFixture.workspace("shop", bannerTitle: "Third"))
        let (next, _) = try fixture.withServer { try revision($0.port) }
        #expect(next == first + 1)
        // Back to the first content: still a new, higher revision.
        try fixture.writeWorkspace("shop", MockFixture.workspace("shop"))
        let (back, _) = try fixture.withServer { try revision($0.port) }
        #expect(back == next + 1)
    }

    @Test("a new workspace file is picked up and a removed one stops being served")
    func addAndRemove() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            try fixture.writeWorkspace("other", MockFixture.workspace("other"))
            #expect(eventually { server.workspaces.entry(for: "other") != nil })
            try FileManager.default.removeItem(at: fixture.workspaces.appendingPathComponent("other.json"))
            #expect(eventually { server.workspaces.entry(for: "other") == nil })
            let gone = try fetch(server.port, "GET /v1/mobile/workspaces/other/config HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(gone.status == 404)
        }
    }

    @Test("two workspaces may not share a secret key")
    func sharedSecret() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace("other", MockFixture.workspace("other", secret: "sk_test_shop_secret"))
        try fixture.withServer { server in
            #expect(server.workspaces.workspaceKeys.count == 1)
        }
    }
}

@Suite("JWKS and SDK options")
struct KeyPublicationTests {
    @Test("jwks.json lists every config and grant key as an ES256 P-256 JWK that verifies that key's signatures")
    func jwks() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try fetch(
                server.port, "GET /v1/mobile/workspaces/shop/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(response.status == 200)
            let keys = try #require(try JSONParser().parse(response.body)["keys"]?.arrayValue)
            #expect(keys.compactMap { $0["kid"]?.stringValue } == ["cfg-1", "cfg-2", "grt-1", "grt-2"])
            let expected = try fixture.publicKeys()
            for jwk in keys {
                #expect(jwk["kty"]?.stringValue == "EC")
                #expect(jwk["crv"]?.stringValue == "P-256")
                #expect(jwk["use"]?.stringValue == "sig")
                #expect(jwk["alg"]?.stringValue == "ES256")
                let key = try P256PublicKey(
                    x: Base64.urlDecode(jwk["x"]?.stringValue ?? "") ?? [],
                    y: Base64.urlDecode(jwk["y"]?.stringValue ?? "") ?? [])
                #expect(key == expected[jwk["kid"]?.stringValue ?? ""])
            }
        }
    }

    @Test("sdk-options gives URLs on the Host the client used and the key maps as GronaOptions takes them")
    func sdkOptions() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try fetch(
                server.port, "GET /_mock/workspaces/shop/sdk-options HTTP/1.1\r\nHost: mock.test:9999\r\n\r\n")
            let options = try JSONParser().parse(response.body)
            #expect(options["workspaceKey"]?.stringValue == "shop")
            #expect(options["configURL"]?.stringValue == "http://mock.test:9999/v1/mobile/workspaces/shop/config")
            #expect(options["eventsURL"]?.stringValue == "http://mock.test:9999/v1/mobile/events")
            let keys = try fixture.publicKeys()
            for kid in ["cfg-1", "cfg-2"] {
                #expect(options["configKeys"]?[kid]?.stringValue == keys[kid]?.spkiBase64)
            }
            #expect(options["grantKeys"]?.objectValue?.keys == ["grt-1", "grt-2"])
            #expect(
                options["configKeys"]?["cfg-1"]?.stringValue?.hasPrefix("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE") == true)
        }
    }
}
