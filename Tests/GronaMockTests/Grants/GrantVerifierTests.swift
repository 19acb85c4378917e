import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

@Suite("Grant verification, as an order backend does it")
struct GrantVerifierTests {
    private func issue(_ fixture: MockFixture, now: Int64) throws -> (token: String, claims: GrantClaims) {
        let (keys, _) = try KeyStore.load(from: fixture.keys.path)
        let outcome = WorkspaceValidator.validate(
            Array(MockFixture.workspace("shop").utf8), expectedKey: "shop", keyIDs: Set(keys.keyIDs))
        let workspace = try #require(outcome.workspace)
        let claims = try #require(
            GrantIssuer.claims(for: GrantsEndpointTests.customer(offer: true), in: workspace, now: now).first)
        let token = try #require(try GrantIssuer.sign([claims], workspace: workspace, keys: keys).first)
        return (token, claims)
    }

    @Test("a grant verifies with its JWKS key and with no other key")
    func keys() throws {
        let fixture = try MockFixture.standard()
        let now: Int64 = 1_764_478_800
        let (token, claims) = try issue(fixture, now: now)
        let all = try fixture.publicKeys()
        #expect(
            try GrantVerifier.verify(token, keys: ["grt-1": try #require(all["grt-1"])], audience: "shop", now: now)
                == claims)
        for kid in ["cfg-1", "cfg-2", "grt-2"] {
            let impostor = ["grt-1": try #require(all[kid])]
            #expect(throws: GrantVerifier.Failure.token(.badSignature)) {
                try GrantVerifier.verify(token, keys: impostor, audience: "shop", now: now)
            }
        }
        let stranger = try P256SigningKey.generate().publicKey
        #expect(throws: GrantVerifier.Failure.token(.badSignature)) {
            try GrantVerifier.verify(token, keys: ["grt-1": stranger], audience: "shop", now: now)
        }
    }

    @Test("a flipped bit anywhere in the token fails")
    func flippedBits() throws {
        let fixture = try MockFixture.standard()
        let now: Int64 = 1_764_478_800
        let (token, _) = try issue(fixture, now: now)
        let keys = try fixture.publicKeys()
        for index in stride(from: 0, to: token.count, by: 7) where Array(token)[index] != "." {
            let tampered = flippingBit(of: token, at: index)
            #expect(throws: GrantVerifier.Failure.self) {
                try GrantVerifier.verify(tampered, keys: keys, audience: "shop", now: now)
            }
        }
    }

    @Test("time: valid from nbf - 60 s to exp + 60 s, and the wrong audience fails")
    func timeAndAudience() throws {
        let fixture = try MockFixture.standard()
        let now: Int64 = 1_764_478_800 + 1234
        let (token, claims) = try issue(fixture, now: now)
        let keys = try fixture.publicKeys()
        _ = try GrantVerifier.verify(token, keys: keys, audience: "shop", now: claims.notBefore - 60)
        _ = try GrantVerifier.verify(token, keys: keys, audience: "shop", now: claims.expiresAt + 59)
        #expect(throws: GrantVerifier.Failure.notYetValid(notBefore: claims.notBefore, now: claims.notBefore - 61)) {
            try GrantVerifier.verify(token, keys: keys, audience: "shop", now: claims.notBefore - 61)
        }
        #expect(throws: GrantVerifier.Failure.expired(expiresAt: claims.expiresAt, now: claims.expiresAt + 60)) {
            try GrantVerifier.verify(token, keys: keys, audience: "shop", now: claims.expiresAt + 60)
        }
        #expect(throws: GrantVerifier.Failure.wrongAudience(expected: "other", found: "shop")) {
            try GrantVerifier.verify(token, keys: keys, audience: "other", now: now)
        }
    }

    @Test("a configuration can never pass for a grant")
    func typConfusion() throws {
        let fixture = try MockFixture.standard()
        let key = try fixture.addKey("grt-x")
        let forged = try JWSSigner.compact(
            payload: Array("{\"aud\":\"shop\"}".utf8), type: .configuration,
            signer: NamedSigningKey(kid: "grt-x", key: key))
        #expect(throws: GrantVerifier.Failure.token(.wrongType(expected: "grona-grant+jwt", found: "grona-config+jws")))
        {
            try GrantVerifier.verify(forged, keys: ["grt-x": key.publicKey], audience: "shop", now: 0)
        }
    }
}
