import Foundation
import GronaReferenceCOpenSSL
import GronaReferenceSDK

/// A throwaway P-256 key that signs ES256 (raw R‖S) for the tests: the SDK itself only verifies.
final class TestSigner: @unchecked Sendable {
    private let key: OpaquePointer

    init() {
        let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil)
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        EVP_PKEY_keygen_init(context)
        EVP_PKEY_CTX_set_group_name(context, "P-256")
        EVP_PKEY_generate(context, &generated)
        guard let generated else { preconditionFailure("P-256 key generation failed") }
        key = generated
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// The public half as base64 SPKI DER, as the SDK's options take it.
    var spkiBase64: String {
        let length = i2d_PUBKEY(key, nil)
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_PUBKEY(key, &cursor)
        }
        return Data(der).base64EncodedString()
    }

    /// ES256 over `message`: R‖S, 64 bytes.
    func sign(_ message: [UInt8]) -> [UInt8] {
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key)
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        EVP_DigestSign(context, &der, &length, message, message.count)
        var cursor: UnsafePointer<UInt8>? = nil
        let signature = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, length)
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        raw.withUnsafeMutableBufferPointer { buffer in
            _ = BN_bn2binpad(r, buffer.baseAddress, 32)
            _ = BN_bn2binpad(s, buffer.baseAddress.map { $0 + 32 }, 32)
        }
        return raw
    }

    /// A compact JWS of `header` and `payload`.
    func compact(header: JSON, payload: JSON) -> String {
        let signingInput = Base64URL.encode(header.serialized) + "." + Base64URL.encode(payload.serialized)
        return signingInput + "." + Base64URL.encode(sign(Array(signingInput.utf8)))
    }
}

/// Keys and documents as grona-mock would serve them, built in the tests.
struct TestPlatform {
    let workspaceKey = "acme-test"
    let current = TestSigner()
    let next = TestSigner()
    let grantSigner = TestSigner()

    var configKeys: KeyRing {
        get throws {
            try KeyRing(parsing: [("cfg-current", current.spkiBase64), ("cfg-next", next.spkiBase64)])
        }
    }

    var grantKeys: KeyRing {
        get throws { try KeyRing(parsing: [("grants-current", grantSigner.spkiBase64)]) }
    }

    /// A configuration document (contract §4) signed by `signers` under their kids.
    func document(
        _ payload: JSON, signers: [(kid: String, signer: TestSigner)]? = nil, alg: String = "ES256",
        typ: String = "grona-config+jws"
    ) -> [UInt8] {
        let payloadText = Base64URL.encode(payload.serialized)
        let chosen = signers ?? [("cfg-current", current), ("cfg-next", next)]
        let signatures: [JSON] = chosen.map { kid, signer in
            let header: JSON = ["alg": .string(alg), "kid": .string(kid), "typ": .string(typ)]
            let protected = Base64URL.encode(header.serialized)
            let signature = signer.sign(Array((protected + "." + payloadText).utf8))
            return ["protected": .string(protected), "signature": .string(Base64URL.encode(signature))]
        }
        let document: JSON = ["payload": .string(payloadText), "signatures": .array(signatures)]
        return document.serialized
    }

    /// A payload with `campaigns`, as the platform fills it in.
    func payload(
        revision: Int64, campaigns: [JSON], demoMode: Bool = false, cap: Int64 = 3, holdout: JSON? = nil,
        previews: [JSON] = [], workspaceKey: String? = nil
    ) -> JSON {
        var settings: JSON = ["maxComponentsPerScreen": .integer(cap), "imageHosts": ["images.acme.example"]]
        if let holdout { settings = settings.with("holdout", holdout) }
        return [
            "schemaVersion": 1, "workspaceKey": .string(workspaceKey ?? self.workspaceKey),
            "revision": .integer(revision),
            "issuedAt": 1_764_478_800, "demoMode": .bool(demoMode), "settings": settings,
            "campaigns": .array(campaigns), "previews": .array(previews),
        ]
    }

    /// A grant token (contract §6) for `customerID`, valid from `nbf` to `exp` (Unix seconds).
    func grant(
        customerID: String, campaignID: String, variantID: String, treatment: JSON, nbf: Int64, exp: Int64,
        kid: String = "grants-current", signer: TestSigner? = nil, aud: String? = nil,
        typ: String = "grona-grant+jwt", alg: String = "ES256"
    ) -> String {
        let header: JSON = ["alg": .string(alg), "kid": .string(kid), "typ": .string(typ)]
        let claims: JSON = [
            "iss": "grona-mock", "aud": .string(aud ?? workspaceKey), "sub": .string(customerID),
            "jti": .string("grt_\(campaignID)_\(exp)"), "iat": .integer(nbf), "nbf": .integer(nbf),
            "exp": .integer(exp), "campaignID": .string(campaignID), "variantID": .string(variantID),
            "placement": "checkout_above_pay", "treatment": treatment, "demo": false,
        ]
        return (signer ?? grantSigner).compact(header: header, payload: claims)
    }
}

extension JSON {
    /// The object with one member set.
    func with(_ key: String, _ value: JSON) -> JSON {
        guard var object = objectValue else { return self }
        object[key] = value
        return .object(object)
    }
}

/// A campaign JSON with the contract's fields; variants default to a 50/50 control and banner.
func campaign(
    _ id: String, placement: String = "home_top", priority: Int64 = 100, status: String = "live",
    unit: String = "install", variants: [JSON]? = nil, targeting: JSON? = nil, schedule: JSON? = nil
) -> JSON {
    var json: JSON = [
        "id": .string(id), "name": .string(id), "status": .string(status), "priority": .integer(priority),
        "placement": .string(placement), "assignment": ["unit": .string(unit), "salt": .string("\(id)-1")],
        "variants": .array(
            variants ?? [
                [
                    "id": "shown", "weight": 10_000,
                    "component": [
                        "type": "banner", "title": .string("\(id) banner"),
                        "cta": ["label": "Go", "action": ["type": "navigate", "route": ["type": "cart"]]],
                    ],
                ]
            ]),
    ]
    if let targeting { json = json.with("targeting", targeting) }
    if let schedule { json = json.with("schedule", schedule) }
    return json
}
