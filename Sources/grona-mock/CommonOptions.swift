import GronaMock

/// Options several commands share, with the same names, variables and defaults as `serve`.
enum CommonOptions {
    static let keys = OptionSpec.value(
        "keys", "DIR", environment: "GRONA_MOCK_KEYS", default: "./keys", help: "Signing keys, one <kid>.pem each.")
    static let workspaces = OptionSpec.value(
        "workspaces", "DIR", environment: "GRONA_MOCK_WORKSPACES", default: "./workspaces",
        help: "Workspace files, one <workspaceKey>.json each.")
    static let database = OptionSpec.value(
        "db", "FILE", environment: "GRONA_MOCK_DB", default: "./grona-mock.sqlite",
        help: "SQLite file that holds revisions and events.")
    static let format = OptionSpec.value("format", "text|json", default: "text", help: "Output format.")

    /// What parsing a subcommand's arguments left to do: run it, or exit (after help or a usage error).
    enum Parsed {
        case run(ParsedOptions)
        case exit(ExitCode)
    }

    /// Parses a subcommand's arguments, printing its help or the usage error itself.
    static func parse(
        _ arguments: [String], specs: [OptionSpec], environment: [String: String], usage: String, command: String,
        maxPositionals: Int
    ) -> Parsed {
        do {
            let parsed = try ParsedOptions.parse(
                arguments, specs: specs, environment: environment, maxPositionals: maxPositionals)
            if parsed.wantsHelp {
                Console.out(usage)
                return .exit(.success)
            }
            return .run(parsed)
        } catch {
            Console.error(
                "grona-mock \(command): \(error.message)\nRun 'grona-mock \(command) --help' for the options.")
            return .exit(.usage)
        }
    }

    /// Loads the keys directory, printing each key that could not be loaded.
    static func loadKeys(_ directory: String) -> KeyStore? {
        do {
            let (keys, problems) = try KeyStore.load(from: directory)
            for problem in problems { Console.error("warning: \(problem)") }
            return keys
        } catch {
            Console.error("grona-mock: \(error)")
            return nil
        }
    }
}
