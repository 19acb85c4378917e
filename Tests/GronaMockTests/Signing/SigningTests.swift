import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

/// RFC 7515 Appendix A.3: a compact ES256 JWS and the public half of its JWK.
enum RFC7515A3 {
    static let token =
        "eyJhbGciOiJFUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    static let x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"

    static func key() throws -> P256PublicKey {
        try P256PublicKey(x: Base64.urlDecode(x) ?? [], y: Base64.urlDecode(y) ?? [])
    }
}

/// Flips one bit of the character at `index` within the base64url alphabet, keeping the token well formed
/// where possible, so a failure is the signature's and not the parser's.
func flippingBit(of token: String, at index: Int) -> String {
    var characters = Array(token)
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    guard let position = alphabet.firstIndex(of: characters[index]) else { return token }
    characters[index] = alphabet[position ^ 1]
    return String(characters)
}

@Suite("ES256 signatures and JWS")
struct SigningTests {
    @Test("RFC 7515 Appendix A.3 verifies with its JWK")
    func rfc7515A3() throws {
        let verified = try JWSVerifier.verifyCompact(RFC7515A3.token, key: RFC7515A3.key())
        #expect(String(decoding: verified.payload, as: UTF8.self).contains("\"iss\":\"joe\""))
        #expect(verified.header["alg"]?.stringValue == "ES256")
    }

    @Test("a flipped bit in the header, the payload or the signature fails A.3")
    func flippedBits() throws {
        let key = try RFC7515A3.key()
        let parts = RFC7515A3.token.split(separator: ".")
        let headerBit = 3
        let payloadBit = parts[0].count + 1 + 10
        let signatureBit = parts[0].count + parts[1].count + 2 + 20
        for index in [headerBit, payloadBit, signatureBit] {
            let tampered = flippingBit(of: RFC7515A3.token, at: index)
            #expect(tampered != RFC7515A3.token)
            #expect(throws: JWSVerifier.Failure.self) { try JWSVerifier.verifyCompact(tampered, key: key) }
        }
    }

    @Test("a signature is 64 bytes R ‖ S; DER converts to raw and back unchanged")
    func rawAndDER() throws {
        let key = try P256SigningKey.generate()
        let message = Array("grona".utf8)
        for _ in 0..<20 {
            let raw = try key.signature(for: message)
            #expect(raw.count == 64)
            #expect(key.publicKey.isValidSignature(raw, for: message))
            let der = try #require(ECDSASignatureForm.der(fromRaw: raw))
            #expect(der.first == 0x30)
            #expect(try ECDSASignatureForm.raw(fromDER: der) == raw)
            #expect(!key.publicKey.isValidSignature(der, for: message))
        }
    }

    @Test("another key, another message, or a truncated signature does not verify")
    func wrongInputs() throws {
        let key = try P256SigningKey.generate()
        let other = try P256SigningKey.generate()
        let message = Array("grant".utf8)
        let signature = try key.signature(for: message)
        #expect(!other.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: message + [0]))
        #expect(!key.publicKey.isValidSignature(Array(signature.prefix(63)), for: message))
        #expect(!key.publicKey.isValidSignature([UInt8](repeating: 0, count: 64), for: message))
    }

    @Test("SPKI is the form GronaOptions takes, and round-trips through JWK coordinates")
    func publicForms() throws {
        let key = try P256SigningKey.generate()
        let spki = key.publicKey.spkiBase64
        #expect(spki.hasPrefix("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"))
        #expect(key.publicKey.spkiDER.count == 91)
        let fromSPKI = try P256PublicKey(spkiDER: Base64.decode(spki) ?? [])
        let fromJWK = try P256PublicKey(x: key.publicKey.x, y: key.publicKey.y)
        #expect(fromSPKI == key.publicKey)
        #expect(fromJWK == key.publicKey)
        let jwk = JWK(kid: "k1", publicKey: key.publicKey)
        #expect(jwk.json.contains("\"kty\":\"EC\",\"crv\":\"P-256\""))
        #expect(jwk.json.contains("\"use\":\"sig\",\"alg\":\"ES256\""))
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(jwk.x)\",\"y\":\"\(jwk.y)\"}"
        #expect(jwk.thumbprint == Base64.urlEncode(GronaMock.SHA256.hash(canonical)))
    }

    @Test("a PKCS#8 PEM written out loads back as the same key")
    func pemRoundTrip() throws {
        let key = try P256SigningKey.generate()
        let pem = try key.pkcs8PEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try P256SigningKey(pem: pem).publicKey == key.publicKey)
    }

    @Test("keys that are not P-256 and text that is not a key are refused without quoting them")
    func badKeys() throws {
        #expect {
            _ = try P256SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
        } throws: { error in
            !"\(error)".contains("not a key")
        }
        let p384 = try openSSL(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        #expect { _ = try P256SigningKey(pem: p384) } throws: { "\($0)".contains("not P-256") }
    }

    @Test("compact JWS: typ, kid and alg are pinned")
    func compactPolicy() throws {
        let key = try P256SigningKey.generate()
        let signer = NamedSigningKey(kid: "grants-1", key: key)
        let token = try JWSSigner.compact(payload: Array("{\"sub\":\"c\"}".utf8), type: .grant, signer: signer)
        let keys = ["grants-1": key.publicKey]
        let verified = try JWSVerifier.verifyCompact(token, keys: keys, type: .grant)
        #expect(verified.kid == "grants-1")
        #expect(verified.header["typ"]?.stringValue == "grona-grant+jwt")
        #expect(throws: JWSVerifier.Failure.wrongType(expected: "grona-config+jws", found: "grona-grant+jwt")) {
            try JWSVerifier.verifyCompact(token, keys: keys, type: .configuration)
        }
        #expect(throws: JWSVerifier.Failure.unknownKeyID("grants-1")) {
            try JWSVerifier.verifyCompact(token, keys: [:], type: .grant)
        }
        let parts = token.split(separator: ".")
        let none = Base64.urlEncode(Array("{\"alg\":\"none\",\"kid\":\"grants-1\",\"typ\":\"grona-grant+jwt\"}".utf8))
        #expect(throws: JWSVerifier.Failure.algorithmNotAllowed("none")) {
            try JWSVerifier.verifyCompact("\(none).\(parts[1]).", keys: keys, type: .grant)
        }
        let der = try #require(ECDSASignatureForm.der(fromRaw: Base64.urlDecode(parts[2]) ?? []))
        #expect(throws: JWSVerifier.Failure.self) {
            try JWSVerifier.verifyCompact("\(parts[0]).\(parts[1]).\(Base64.urlEncode(der))", keys: keys, type: .grant)
        }
    }

    @Test("an independent verifier (the openssl command) accepts our signatures")
    func openSSLAgrees() throws {
        let key = try P256SigningKey.generate()
        let message = Array("signed by grona-mock".utf8)
        let raw = try key.signature(for: message)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let publicPEM = "-----BEGIN PUBLIC KEY-----\n\(key.publicKey.spkiBase64)\n-----END PUBLIC KEY-----\n"
        try publicPEM.write(to: directory.appendingPathComponent("public.pem"), atomically: true, encoding: .utf8)
        try Data(message).write(to: directory.appendingPathComponent("message"))
        try Data(try #require(ECDSASignatureForm.der(fromRaw: raw))).write(to: directory.appendingPathComponent("sig"))
        let output = try openSSL(
            ["dgst", "-sha256", "-verify", "public.pem", "-signature", "sig", "message"], in: directory)
        #expect(output.contains("Verified OK"))
    }
}

/// Runs the openssl command line; fails the test if it is missing (CI installs it).
func openSSL(_ arguments: [String], in directory: URL? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
