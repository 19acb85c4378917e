import GronaMock
import GronaMockPostgres
import GronaMockSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The grona-mock command line: a thin shell over the GronaMock engine that parses arguments, handles
/// signals and prints.
let usage = """
    grona-mock \(GronaMockVersion.current): a mock of the Grona platform for SDK, app and order-backend tests.

    USAGE: grona-mock [serve] [options]
           grona-mock <command> [options]

    COMMANDS:
      serve      Serve the endpoints and the /_mock API (the default when no command is given).
      keys       Generate signing keys; list their public halves (SPKI for GronaOptions, JWK thumbprints).
      config     Validate workspace files; sign the bundled configuration; verify a signed one.
      grants     Issue a customer's grants; verify a grant as an order backend does.
      events     Export received events (ndjson or CSV) or summarise them, from the database file.
      exec       Serve while one command runs (tests, CI), then exit with its status: exec -- COMMAND.
      tls        A local certificate authority for HTTPS: init (CA and server certificate), trust (how, per platform).
      load       Drive a simulated SDK fleet at a URL (open model, latency percentiles, --verify, thresholds).
      conformance  Grade an SDK through its test service: the scenario catalogue, PASS/FAIL per test, JUnit.

    Run 'grona-mock <command> --help' for a command's options.
      -h, --help      Show this help.
      --version       Print the version.
    """

// A closed stdout or socket must fail a write, not kill the process.
signal(SIGPIPE, SIG_IGN)

var environment: [String: String] = [:]
var pointer = environ
while let entry = pointer.pointee {
    let text = String(cString: entry)
    if let equals = text.firstIndex(of: "=") {
        environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    pointer += 1
}

let arguments = Array(CommandLine.arguments.dropFirst())
let status: ExitCode
switch arguments.first {
case nil:
    status = ServeCommand.run([], environment: environment)
case "serve":
    status = ServeCommand.run(Array(arguments.dropFirst()), environment: environment)
case "keys":
    status = KeysCommand.run(Array(arguments.dropFirst()), environment: environment)
case "config":
    status = ConfigCommand.run(Array(arguments.dropFirst()), environment: environment)
case "grants":
    status = GrantsCommand.run(Array(arguments.dropFirst()), environment: environment)
case "events":
    status = EventsCommand.run(Array(arguments.dropFirst()), environment: environment)
case "exec":
    exit(ExecCommand.run(Array(arguments.dropFirst()), environment: environment))
case "tls":
    status = TLSCommand.run(Array(arguments.dropFirst()), environment: environment)
case "load":
    exit(LoadCommand.run(Array(arguments.dropFirst()), environment: environment))
case "conformance":
    status = ConformanceCommand.run(Array(arguments.dropFirst()), environment: environment)
case WatchGroupCommand.name?:
    // Internal: the watcher `exec` starts; not in the help.
    exit(WatchGroupCommand.run(Array(arguments.dropFirst())))
case "--version":
    Console.out(
        "grona-mock \(GronaMockVersion.current) (\(GronaMockVersion.libraries), SQLite \(SQLiteStorage.libraryVersion), "
            + "libpq \(PostgresStorage.libraryVersion))"
    )
    status = .success
case "--help", "-h", "help":
    Console.out(usage)
    status = .success
case let option? where option.hasPrefix("-"):
    status = ServeCommand.run(arguments, environment: environment)
case let command?:
    Console.error("grona-mock: unknown command \"\(command)\"\nRun 'grona-mock --help' for the commands.")
    status = .usage
}
exit(status.rawValue)
