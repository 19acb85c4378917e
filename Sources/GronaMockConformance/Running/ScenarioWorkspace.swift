import GronaMock
import GronaMockJSON
import GronaMockPlatform

/// The workspace a scenario's test is served: the runner's base document, patched by the scenario (RFC 7386
/// JSON Merge Patch: an object merges member by member, `null` removes, anything else, arrays included,
/// replaces), under a fresh key per test.
package enum ScenarioWorkspace {
    /// The configuration keys: the client pins the current and the next; `other` is one it never pins.
    package static let currentConfigKey = "conformance-config-current"
    package static let nextConfigKey = "conformance-config-next"
    package static let otherConfigKey = "conformance-config-other"
    package static let currentGrantKey = "conformance-grants-current"
    package static let nextGrantKey = "conformance-grants-next"
    package static let otherGrantKey = "conformance-grants-other"

    /// Every key a scenario may name: the runner's mock must hold them all (`ConformanceKeys`).
    package static let keyIDs = [
        currentConfigKey, nextConfigKey, otherConfigKey, currentGrantKey, nextGrantKey, otherGrantKey,
    ]

    /// The base: signed by the current key only (so that a rotation to the next key is a change the SDK must
    /// follow), grants by the current grant key with the next one published, one-hour grant windows, no
    /// campaigns. `imageHosts` lists the one host scenarios use for allowed images.
    package static func base(key: String, secret: String) -> JSONValue {
        [
            "workspaceKey": .string(key),
            "secretKeys": [.string(secret)],
            "signing": [
                "configKeys": [.string(currentConfigKey)],
                "grantKeys": [.string(currentGrantKey), .string(nextGrantKey)],
            ],
            "grants": ["ttlSeconds": 3600],
            "config": [
                "demoMode": false,
                "settings": ["maxComponentsPerScreen": 3, "imageHosts": ["images.conformance.example"]],
                "campaigns": [],
                "previews": [],
            ],
        ]
    }

    /// `target` with `patch` applied (RFC 7386 §2).
    package static func merge(_ target: JSONValue, _ patch: JSONValue) -> JSONValue {
        guard let patchObject = patch.objectValue else { return patch }
        var result = target.objectValue ?? JSONObject()
        for member in patchObject {
            if member.value.isNull {
                result.remove(member.key)
            } else {
                result.set(member.key, merge(result[member.key] ?? .null, member.value))
            }
        }
        return .object(result)
    }

    /// The document with its key and secret set back to the test's: a patch cannot move a test onto another
    /// workspace or lock the runner out of its grants.
    static func pinned(_ document: JSONValue, key: String, secret: String) -> JSONValue {
        guard var object = document.objectValue else { return document }
        object.set("workspaceKey", .string(key))
        object.set("secretKeys", [.string(secret)])
        return .object(object)
    }
}

/// The six keys of the conformance runner, written as `<kid>.pem` files for the mock it starts: fresh for
/// each run, so the runner needs no key files of its own.
package enum ConformanceKeys {
    /// Writes a new P-256 key for each id of `ScenarioWorkspace.keyIDs` into `directory` (which must exist).
    package static func write(to directory: String) throws -> [String] {
        for kid in ScenarioWorkspace.keyIDs {
            let pem = try P256SigningKey.generate().pkcs8PEM()
            try FileSystem.write(Array(pem.utf8), to: directory + "/" + kid + ".pem", mode: 0o600)
        }
        return ScenarioWorkspace.keyIDs
    }
}
