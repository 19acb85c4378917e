import GronaMockJSON

/// Validates a workspace file (contract §3 and §4) and reports every problem at once, each with its JSON
/// path; see docs/workspaces.md for the rules.
package enum WorkspaceValidator {
    /// The outcome: the workspace as far as it could be read, and every problem found.
    package struct Outcome: Sendable {
        /// Nil only when the document is not JSON, not an object, or has no usable `workspaceKey`.
        package let workspace: Workspace?
        package let problems: [ValidationProblem]

        package var errors: [ValidationProblem] { problems.filter { $0.severity == .error } }
        package var warnings: [ValidationProblem] { problems.filter { $0.severity == .warning } }
        package var hasErrors: Bool { !errors.isEmpty }
    }

    /// Validates a file's bytes. `expectedKey` is the key the file name or URL gives, which the document
    /// must match; `keyIDs` are the signing keys that exist.
    package static func validate(_ bytes: [UInt8], expectedKey: String?, keyIDs: Set<String>) -> Outcome {
        let document: JSONValue
        do {
            document = try JSONParser().parse(bytes)
        } catch {
            return Outcome(workspace: nil, problems: [ValidationProblem(.error, .root, "not valid JSON: \(error)")])
        }
        return validate(document, expectedKey: expectedKey, keyIDs: keyIDs)
    }

    package static func validate(_ document: JSONValue, expectedKey: String?, keyIDs: Set<String>) -> Outcome {
        var problems = ProblemCollector()
        guard let root = problems.object(document, at: .root) else {
            return Outcome(workspace: nil, problems: problems.problems)
        }
        problems.unknownMembers(
            of: root, at: .root, known: ["workspaceKey", "secretKeys", "signing", "grants", "config"])

        let keyPath = JSONPath.root.appending("workspaceKey")
        var key = problems.string(root["workspaceKey"], at: keyPath)
        if let found = key, !IdentifierKind.workspaceKey.isValid(found) {
            problems.identifierError(keyPath, .workspaceKey, found)
            key = nil
        }
        if let found = key, let expectedKey, found != expectedKey {
            // The key names the file and the URL: a mismatch is an identifier problem, never relaxed.
            problems.error(
                keyPath, "\(Quote.text(found)) does not match the file or URL, which name \"\(expectedKey)\"",
                blocksServing: true)
        }

        let secretKeys = readSecretKeys(root["secretKeys"], &problems)
        let (configKeys, grantKeys) = readSigning(root["signing"], keyIDs: keyIDs, &problems)
        // Without its key, its secret keys and keys that exist to sign with, no workspace can be served, valid
        // content or not.
        for part in ["workspaceKey", "secretKeys", "signing"] {
            problems.markBlocksServing(under: .root.appending(part))
        }
        let ttl = readGrants(root["grants"], &problems)

        var config = ConfigValidator(problems: problems)
        let body = config.validate(root["config"])
        problems = config.problems

        guard let key = key ?? expectedKey else { return Outcome(workspace: nil, problems: problems.problems) }
        let workspace = Workspace(
            key: key, secretKeys: secretKeys, configKeyIDs: configKeys, grantKeyIDs: grantKeys, grantTTLSeconds: ttl,
            demoMode: body.demoMode, holdout: body.holdout, campaigns: body.campaigns, config: body.object)
        return Outcome(workspace: workspace, problems: problems.problems)
    }

    private static func readSecretKeys(_ value: JSONValue?, _ problems: inout ProblemCollector) -> [String] {
        let path = JSONPath.root.appending("secretKeys")
        guard let list = problems.array(value, at: path, nonEmpty: true) else { return [] }
        var keys: [String] = []
        for (index, item) in list.enumerated() {
            // Secrets are never quoted back: a message names the position only.
            guard let secret = problems.string(item, at: path.appending(index)) else { continue }
            guard IdentifierKind.secretKey.isValid(secret) else {
                problems.identifierError(path.appending(index), .secretKey, secret)
                continue
            }
            if keys.contains(secret) {
                problems.error(path.appending(index), "repeats an earlier secret key", blocksServing: true)
                continue
            }
            keys.append(secret)
        }
        return keys
    }

    private static func readSigning(
        _ value: JSONValue?, keyIDs: Set<String>, _ problems: inout ProblemCollector
    ) -> (config: [String], grant: [String]) {
        let path = JSONPath.root.appending("signing")
        guard let signing = problems.object(value, at: path) else { return ([], []) }
        problems.unknownMembers(of: signing, at: path, known: ["configKeys", "grantKeys"])
        func keyList(_ name: String) -> [String] {
            let listPath = path.appending(name)
            guard let list = problems.array(signing[name], at: listPath, nonEmpty: true) else { return [] }
            var kids: [String] = []
            for (index, item) in list.enumerated() {
                guard let kid = problems.string(item, at: listPath.appending(index)) else { continue }
                if !IdentifierKind.keyID.isValid(kid) {
                    problems.identifierError(listPath.appending(index), .keyID, kid)
                } else if kids.contains(kid) {
                    problems.error(listPath.appending(index), "key \"\(kid)\" is listed twice")
                } else if !keyIDs.contains(kid) {
                    problems.error(
                        listPath.appending(index), "no key \"\(kid)\" in the keys directory (expected \(kid).pem there)"
                    )
                } else {
                    kids.append(kid)
                }
            }
            return kids
        }
        return (keyList("configKeys"), keyList("grantKeys"))
    }

    private static func readGrants(_ value: JSONValue?, _ problems: inout ProblemCollector) -> Int64 {
        let path = JSONPath.root.appending("grants")
        guard let grants = problems.object(value, at: path, required: false) else { return 3600 }
        problems.unknownMembers(of: grants, at: path, known: ["ttlSeconds"])
        return problems.integer(
            grants["ttlSeconds"], at: path.appending("ttlSeconds"), in: 60...604_800, required: false)
            ?? 3600
    }
}
