import GronaMock
import GronaMockPostgres
import GronaMockSQLite

/// Options several commands share, with the same names, variables and defaults as `serve`.
enum CommonOptions {
    static let keys = OptionSpec.value(
        "keys", "DIR", environment: "GRONA_MOCK_KEYS", default: "./keys", help: "Signing keys, one <kid>.pem each.")
    static let workspaces = OptionSpec.value(
        "workspaces", "DIR", environment: "GRONA_MOCK_WORKSPACES", default: "./workspaces",
        help: "Workspace files, one <workspaceKey>.json each.")
    /// The database file every command opens unless told otherwise.
    static let defaultDatabase = "./grona-mock.sqlite"
    static let database = OptionSpec.value(
        "db", "FILE", environment: "GRONA_MOCK_DB", default: defaultDatabase,
        help: "SQLite file that holds revisions and events.")
    /// PostgreSQL instead of the SQLite file: what several instances share (docs/postgres.md).
    static let store = OptionSpec.value(
        "store", "URL", environment: "GRONA_MOCK_STORE",
        help: "PostgreSQL for events and revisions instead of --db: postgres://USER@HOST:PORT/DATABASE.")
    static let format = OptionSpec.value("format", "text|json", default: "text", help: "Output format.")

    /// Where events and revisions live: PostgreSQL when `--store` names it, otherwise the SQLite file of
    /// `--db` (nil when it has no value, for `exec`'s temporary file). Both given is a usage error, and so is
    /// a `--store` that is not a PostgreSQL URL; neither message repeats the URL, which may hold a password.
    static func storage(_ parsed: ParsedOptions) throws(UsageError) -> GronaMockConfiguration.Storage? {
        guard let url = parsed.value("store") else { return parsed.value("db").map { .sqlite(path: $0) } }
        guard PostgresStorage.accepts(url) else {
            throw UsageError("--store must be a postgres:// or postgresql:// URL (an SQLite file goes in --db)")
        }
        guard !parsed.given.contains("db") else {
            throw UsageError("--store and --db name two stores: give one (--store for PostgreSQL, --db for SQLite)")
        }
        return .postgres(url: url)
    }

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

    /// One subcommand of a command group (`config sign`, `grants verify`, …).
    struct Subcommand {
        let name: String
        let specs: [OptionSpec]
        var positionals = 0
        let action: (ParsedOptions) -> ExitCode
    }

    /// Picks the subcommand named by the first argument, parses the rest against its options, and runs it;
    /// `--help` prints `usage`, a missing or unknown subcommand is a usage error.
    static func dispatch(
        _ arguments: [String], command: String, usage: String, subcommands: [Subcommand],
        environment: [String: String]
    ) -> ExitCode {
        guard let name = arguments.first else {
            Console.error(usage)
            return .usage
        }
        if name == "--help" || name == "-h" {
            Console.out(usage)
            return .success
        }
        guard let subcommand = subcommands.first(where: { $0.name == name }) else {
            Console.error("grona-mock \(command): unknown subcommand \"\(name)\"\nRun 'grona-mock \(command) --help'.")
            return .usage
        }
        switch parse(
            Array(arguments.dropFirst()), specs: subcommand.specs, environment: environment, usage: usage,
            command: "\(command) \(name)", maxPositionals: subcommand.positionals)
        {
        case .run(let options): return subcommand.action(options)
        case .exit(let code): return code
        }
    }

    /// Opens the `--store` database or the `--db` file for `command`, or prints why it cannot and returns nil.
    static func openStorage(_ options: ParsedOptions, for command: String) -> (any GronaStorage)? {
        let storage: GronaMockConfiguration.Storage
        do throws(UsageError) {
            storage = try Self.storage(options) ?? .sqlite(path: defaultDatabase)
        } catch {
            Console.error("grona-mock \(command): \(error.message)")
            return nil
        }
        do {
            if let url = options.value("store") { return try PostgresStorage(url: url) }
            return try SQLiteStorage(path: options.value("db") ?? defaultDatabase)
        } catch {
            Console.error("grona-mock \(command): cannot open \(storage.description): \(error)")
            return nil
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
