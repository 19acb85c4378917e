import Foundation
import Testing

@testable import GronaReferenceSDK

/// RFC 7515 Appendix A.3: a compact ES256 JWS and the public half of its JWK.
enum RFC7515A3 {
    static let header = "eyJhbGciOiJFUzI1NiJ9"
    static let payload =
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let signature = "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    static let x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"

    /// The JWK's point as a P-256 SubjectPublicKeyInfo: the fixed DER prefix, then 0x04 ‖ X ‖ Y.
    static var spki: [UInt8] {
        let prefix: [UInt8] = [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86,
            0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
        ]
        return prefix + (Base64URL.decode(x) ?? []) + (Base64URL.decode(y) ?? [])
    }

    static var signingInput: [UInt8] { Array((header + "." + payload).utf8) }
}

@Suite("ES256 verification (contract §2)")
struct ES256Tests {
    @Test("RFC 7515 Appendix A.3 verifies with its JWK")
    func rfc7515A3() throws {
        let key = try #require(P256PublicKey(spki: RFC7515A3.spki))
        let signature = try #require(Base64URL.decode(RFC7515A3.signature))
        #expect(signature.count == 64)
        #expect(key.verifiesES256(signature: signature, message: RFC7515A3.signingInput))
    }

    @Test("a flipped byte anywhere in the signature or the signing input fails A.3")
    func flippedBytes() throws {
        let key = try #require(P256PublicKey(spki: RFC7515A3.spki))
        let signature = try #require(Base64URL.decode(RFC7515A3.signature))
        for index in [0, 31, 32, 63] {
            var tampered = signature
            tampered[index] ^= 0x01
            #expect(!key.verifiesES256(signature: tampered, message: RFC7515A3.signingInput))
        }
        var input = RFC7515A3.signingInput
        input[input.count - 1] ^= 0x01
        #expect(!key.verifiesES256(signature: signature, message: input))
    }

    @Test("a signature that is not exactly 64 bytes is invalid, not a crash")
    func wrongLengths() throws {
        let key = try #require(P256PublicKey(spki: RFC7515A3.spki))
        let signature = try #require(Base64URL.decode(RFC7515A3.signature))
        for bytes in [[], Array(signature.prefix(63)), signature + [0], [UInt8](repeating: 0, count: 64)] {
            #expect(!key.verifiesES256(signature: bytes, message: RFC7515A3.signingInput))
        }
    }

    @Test("a key that is not one P-256 SPKI is refused")
    func badKeys() {
        #expect(P256PublicKey(spki: []) == nil)
        #expect(P256PublicKey(spki: Array(RFC7515A3.spki.dropLast())) == nil)
        #expect(P256PublicKey(spki: RFC7515A3.spki + [0]) == nil)
    }

    @Test("the protected header must pin ES256, the expected typ and a known kid")
    func protectedHeader() throws {
        let signer = TestSigner()
        let keys = try KeyRing(parsing: [("k1", signer.spkiBase64)])
        func check(_ header: JSON, signer: TestSigner = signer) -> Result<String, JOSESignature.Refusal> {
            let parts = signer.compact(header: header, payload: ["a": 1]).split(separator: ".")
            return JOSESignature(protectedText: parts[0], payloadText: parts[1], signatureText: parts[2])
                .check(type: "grona-config+jws", keys: keys)
        }
        #expect(check(["alg": "ES256", "kid": "k1", "typ": "grona-config+jws"]) == .success("k1"))
        #expect(check(["alg": "none", "kid": "k1", "typ": "grona-config+jws"]) == .failure(.wrongAlgorithm("none")))
        #expect(
            check(["alg": "ES256", "kid": "k1", "typ": "grona-grant+jwt"]) == .failure(.wrongType("grona-grant+jwt")))
        #expect(check(["alg": "ES256", "kid": "k2", "typ": "grona-config+jws"]) == .failure(.unknownKeyID("k2")))
        #expect(
            check(["alg": "ES256", "kid": "k1", "typ": "grona-config+jws"], signer: TestSigner())
                == .failure(.badSignature))
    }
}

@Suite("base64url, strictly (RFC 7515 §2)")
struct Base64URLTests {
    @Test("round trips every length")
    func roundTrip() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.encode(Array("ab?".utf8)) == "YWI_")
    }

    @Test(
        "refuses padding, the standard alphabet, whitespace, a lone character and non-zero spare bits",
        arguments: ["YQ==", "YWI+", "YW I", "Y", "YWJjZ", "YR", "YWJ"])
    func refuses(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test("the canonical spellings of those values decode")
    func canonical() {
        #expect(Base64URL.decode("YQ") == Array("a".utf8))
        #expect(Base64URL.decode("YWI") == Array("ab".utf8))
        #expect(Base64URL.decode("YWI_") == Array("ab?".utf8))
    }
}
