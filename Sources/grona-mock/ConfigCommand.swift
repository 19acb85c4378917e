import GronaMock
import GronaMockJSON
import GronaMockPlatform
import GronaMockSQLite

/// `grona-mock config validate|sign|verify`: the workspace checks, the bundled configuration an app ships,
/// and an independent check of a signed document.
enum ConfigCommand {
    static let usage = """
        USAGE: grona-mock config validate [FILE…] [--workspaces DIR] [--keys DIR]
               grona-mock config sign <workspaceKey> [-o FILE] [--workspaces DIR] [--keys DIR] [--db FILE | --store URL]
               grona-mock config verify <FILE> [--key KID=SPKI]… [--keys DIR]

        validate  Checks workspace files (all of --workspaces when none are named) and lists every problem
                  with its JSON path. Exit 1 when any file has an error; warnings alone exit 0.
        sign      Writes the signed configuration of a workspace (the bundled grona-config.json an app
                  ships) to FILE, or to standard output. It is the revision a server on the same --db
                  serves, byte for byte; a changed workspace gets the next revision.
        verify    Checks each signature of a signed configuration on its own, with the keys given as
                  --key KID=SPKI (the strings 'grona-mock keys list' prints), or else every key in --keys.
                  A signature whose kid has no key given is reported as not checked. Exit 0 when at least
                  one signature verifies and none fails.

        OPTIONS:
        \(ParsedOptions.help(for: [CommonOptions.workspaces, CommonOptions.keys, CommonOptions.database, CommonOptions.store, output, key]))
        """

    private static let output = OptionSpec.value(
        "output", "FILE", short: "o", help: "Where sign writes the document (default: standard output).")
    private static let key = OptionSpec.value(
        "key", "KID=SPKI", help: "A public key for verify, as printed by 'keys list'; repeat for several.")

    static func run(_ arguments: [String], environment: [String: String]) -> ExitCode {
        CommonOptions.dispatch(
            arguments, command: "config", usage: usage,
            subcommands: [
                .init(
                    name: "validate", specs: [CommonOptions.workspaces, CommonOptions.keys], positionals: 10_000,
                    action: validate),
                .init(
                    name: "sign",
                    specs: [
                        CommonOptions.workspaces, CommonOptions.keys, CommonOptions.database, CommonOptions.store,
                        output,
                    ],
                    positionals: 1, action: sign),
                .init(name: "verify", specs: [CommonOptions.keys, key], positionals: 1, action: verify),
            ], environment: environment)
    }

    // MARK: - validate

    private static func validate(_ options: ParsedOptions) -> ExitCode {
        guard let keys = CommonOptions.loadKeys(options.value("keys") ?? "./keys") else { return .failure }
        var files = options.positionals
        if files.isEmpty {
            let directory = options.value("workspaces") ?? "./workspaces"
            do {
                files = try FileSystem.list(directory).filter { $0.hasSuffix(".json") }.map { directory + "/" + $0 }
            } catch {
                Console.error("grona-mock config validate: \(error)")
                return .failure
            }
            if files.isEmpty {
                Console.error("grona-mock config validate: no .json files in \(directory)")
                return .failure
            }
        }
        var anyErrors = false
        var secretOwners: [String: String] = [:]
        for file in files {
            var problems: [ValidationProblem]
            var summary = ""
            do {
                let bytes = try FileSystem.read(file, maxBytes: 8 * 1024 * 1024)
                let stem = String(file.split(separator: "/").last ?? "").replacingSuffix(".json")
                let outcome = WorkspaceValidator.validate(bytes, expectedKey: stem, keyIDs: Set(keys.keyIDs))
                problems = outcome.problems
                if let workspace = outcome.workspace {
                    summary = " (\(workspace.campaigns.count) campaigns)"
                    for (index, secret) in workspace.secretKeys.enumerated() {
                        if let owner = secretOwners[secret], owner != workspace.key {
                            problems.append(
                                ValidationProblem(
                                    .error, JSONPath.root.appending("secretKeys").appending(index),
                                    "this secret key is already used by workspace \"\(owner)\""))
                        }
                        secretOwners[secret] = workspace.key
                    }
                }
            } catch {
                problems = [ValidationProblem(.error, .root, "\(error)")]
            }
            let errors = problems.filter { $0.severity == .error }.count
            let warnings = problems.count - errors
            anyErrors = anyErrors || errors > 0
            let counts = [errors > 0 ? plural(errors, "error") : nil, warnings > 0 ? plural(warnings, "warning") : nil]
                .compactMap { $0 }
            Console.out(
                "\(file): \(errors > 0 ? "would not be served" : "ok")\(summary)"
                    + (counts.isEmpty ? "" : ", \(counts.joined(separator: ", "))"))
            for problem in problems { Console.out("  \(problem.severity.rawValue): \(problem)") }
        }
        return anyErrors ? .failure : .success
    }

    // MARK: - sign

    private static func sign(_ options: ParsedOptions) -> ExitCode {
        guard let workspaceKey = options.positionals.first else {
            Console.error(
                "grona-mock config sign: name the workspace, as in 'grona-mock config sign acme-market -o grona-config.json'"
            )
            return .usage
        }
        guard let keys = CommonOptions.loadKeys(options.value("keys") ?? "./keys") else { return .failure }
        let directory = options.value("workspaces") ?? "./workspaces"
        guard let storage = CommonOptions.openStorage(options, for: "config sign") else { return .failure }
        let registry = WorkspaceRegistry(
            directory: directory, keys: keys, revisions: storage, clock: ServerClock(),
            logger: .silent)
        let reports = registry.loadDirectory()
        guard let entry = registry.entry(for: workspaceKey) else {
            let path = directory + "/" + workspaceKey + ".json"
            if let report = reports.first(where: { $0.path == path }) {
                Console.error("grona-mock config sign: \(path) has errors:")
                for problem in report.problems where problem.severity == .error { Console.error("  error: \(problem)") }
            } else {
                Console.error("grona-mock config sign: no workspace \"\(workspaceKey)\": expected \(path)")
            }
            return .failure
        }
        let configuration = entry.configuration
        if let path = options.value("output") {
            do {
                try FileSystem.write(configuration.document, to: path)
            } catch {
                Console.error("grona-mock config sign: \(error)")
                return .failure
            }
            Console.error(
                "signed \(workspaceKey) revision \(configuration.revision) with \(entry.workspace.configKeyIDs.joined(separator: ", ")) -> \(path)"
            )
        } else {
            Console.out(String(decoding: configuration.document, as: UTF8.self))
        }
        return .success
    }

    // MARK: - verify

    private static func verify(_ options: ParsedOptions) -> ExitCode {
        guard let file = options.positionals.first else {
            Console.error("grona-mock config verify: name the file, as in 'grona-mock config verify grona-config.json'")
            return .usage
        }
        var publicKeys: [String: P256PublicKey] = [:]
        for pair in options.allValues("key") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let der = Base64.decode(parts[1]), let key = try? P256PublicKey(spkiDER: Array(der))
            else {
                Console.error(
                    "grona-mock config verify: --key takes KID=SPKI with a base64 P-256 SPKI, as 'keys list' prints it")
                return .usage
            }
            publicKeys[String(parts[0])] = key
        }
        if publicKeys.isEmpty {
            guard let keys = CommonOptions.loadKeys(options.value("keys") ?? "./keys") else { return .failure }
            for kid in keys.keyIDs { if let key = keys[kid] { publicKeys[kid] = key.publicKey } }
        }
        do {
            let document = try FileSystem.read(file, maxBytes: 16 * 1024 * 1024)
            let (payload, checks) = try JWSVerifier.verifyGeneral(document, keys: publicKeys, type: .configuration)
            var verified = 0
            var failed = 0
            for check in checks {
                switch check.result {
                case .success:
                    verified += 1
                    Console.out("signature \(check.kid ?? "?"): valid")
                case .failure(.unknownKeyID):
                    // The SDK carries the current and the next key; checking with one of them is normal.
                    Console.out("signature \(check.kid ?? "?"): not checked (no key given for this kid)")
                case .failure(let failure):
                    failed += 1
                    Console.out("signature \(check.kid ?? "?"): INVALID: \(failure)")
                }
            }
            if let object = try? JSONParser().parse(payload).objectValue {
                let fields = ["workspaceKey", "revision", "issuedAt"].map {
                    "\($0) \(object[$0]?.description ?? "missing")"
                }
                Console.out(
                    "payload: \(fields.joined(separator: ", ")), \(object["campaigns"]?.arrayValue?.count ?? 0) campaigns"
                )
            }
            return failed == 0 && verified > 0 ? .success : .failure
        } catch {
            Console.error("grona-mock config verify: \(error)")
            return .failure
        }
    }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}

extension String {
    func replacingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
