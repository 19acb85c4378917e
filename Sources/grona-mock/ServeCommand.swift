import GronaMock
import GronaMockHTTP
import GronaMockPlatform
import GronaMockSQLite
import GronaMockTLS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `grona-mock serve`: runs the mock until SIGINT, SIGTERM, SIGQUIT or SIGHUP, then shuts down gracefully.
enum ServeCommand {
    static let options: [OptionSpec] = [
        .value(
            "host", "ADDRESS", environment: "GRONA_MOCK_HOST", default: "127.0.0.1",
            help: "Address to listen on; 0.0.0.0 for every interface."),
        .value(
            "port", "PORT", environment: "GRONA_MOCK_PORT", default: "8080",
            help:
                "TCP port for plain HTTP; 0 picks a free one (read it from the start line); none with --tls-port only."),
        .value(
            "tls-port", "PORT", environment: "GRONA_MOCK_TLS_PORT",
            help: "Also serve HTTPS on PORT (0 picks one), with the certificate of 'grona-mock tls init'."),
        .value(
            "tls-cert", "FILE", environment: "GRONA_MOCK_TLS_CERT",
            help: "Certificate chain (PEM) for --tls-port (default: server.pem of 'grona-mock tls init')."),
        .value(
            "tls-key", "FILE", environment: "GRONA_MOCK_TLS_KEY",
            help: "Its private key (PEM; default: server-key.pem beside it). Both reload when they change."),
        .value(
            "workspaces", "DIR", environment: "GRONA_MOCK_WORKSPACES", default: "./workspaces",
            help: "Workspace files, one <workspaceKey>.json each."),
        .value(
            "keys", "DIR", environment: "GRONA_MOCK_KEYS", default: "./keys",
            help: "Signing keys, one <kid>.pem (PKCS#8) each."),
        .value(
            "db", "FILE", environment: "GRONA_MOCK_DB", default: CommonOptions.defaultDatabase,
            help: "SQLite file for events and configuration revisions; :memory: keeps them in memory."),
        CommonOptions.store,
        .value(
            "static", "DIR", environment: "GRONA_MOCK_STATIC",
            help: "Serve the files of DIR under /_mock/static/<name>."),
        {
            var token = OptionSpec.value(
                "admin-token", "TOKEN", environment: "GRONA_MOCK_ADMIN_TOKEN",
                help: "Require Authorization: Bearer TOKEN on /_mock routes (all but health); never empty.")
            token.keepsEmptyEnvironment = true
            return token
        }(),
        .value(
            "max-events", "N", environment: "GRONA_MOCK_MAX_EVENTS",
            help: "Keep at most N events, dropping the oldest (default: keep all)."),
        .value(
            "max-clones", "N", environment: "GRONA_MOCK_MAX_CLONES",
            default: String(GronaMockConfiguration.defaultMaxClones),
            help: "Serve at most N clones at once; one more is refused with 409 too_many_clones."),
        .value(
            "config-max-age", "SECONDS", environment: "GRONA_MOCK_CONFIG_MAX_AGE", default: "60",
            help: "Cache-Control max-age of the configuration and JWKS."),
        .flag(
            "access-log", environment: "GRONA_MOCK_ACCESS_LOG",
            help: "Log one line per request (method, path, status, bytes, duration)."),
        .value(
            "log-format", "text|json", environment: "GRONA_MOCK_LOG_FORMAT", default: "text",
            help: "Log line format on standard error."),
        .value(
            "event-loops", "N", environment: "GRONA_MOCK_EVENT_LOOPS", default: String(HTTPServer.coreCount),
            help: "Event loop threads (one per core)."),
        .value(
            "events-offload-bytes", "N", environment: "GRONA_MOCK_EVENTS_OFFLOAD_BYTES",
            default: String(GronaMockConfiguration.defaultEventsOffloadBytes),
            help: "Decode and check event batches of N bytes of JSON or more off the event loops (0: none)."),
        .value(
            "max-connections", "N", environment: "GRONA_MOCK_MAX_CONNECTIONS", default: "10000",
            help: "Open connections beyond this are answered 503."),
    ]

    static let usage = """
        USAGE: grona-mock serve [options]

        Serves the Grona configuration, grants and events endpoints and the /_mock control API.
        Prints "grona-mock <version> listening on <url>" once the socket is bound.
        Stops on SIGINT, SIGTERM, SIGQUIT or SIGHUP: no new connections, requests in flight answered, exit 0.

        OPTIONS:
        \(ParsedOptions.help(for: options))
          -h, --help             Show this help.
        """

    static func run(_ arguments: [String], environment: [String: String]) -> ExitCode {
        let configuration: GronaMockConfiguration
        let logger: Logger
        do {
            let parsed = try ParsedOptions.parse(arguments, specs: options, environment: environment)
            if parsed.wantsHelp {
                Console.out(usage)
                return .success
            }
            (configuration, logger) = try makeConfiguration(parsed)
        } catch {
            Console.error("grona-mock serve: \(error.message)\nRun 'grona-mock serve --help' for the options.")
            return .usage
        }

        // SIGQUIT as SIGTERM: left to the Swift runtime, it prints a crash report and the server runs on. SIGHUP
        // (the terminal closed) too: its default action ends the process at once, with batches being committed.
        var signals = blockSignals([SIGINT, SIGTERM, SIGQUIT, SIGHUP])
        guard let server = startOrReport(configuration, logger: logger) else { return .failure }
        // One line per listener, plain HTTP first: scripts read the first line's URL.
        for url in server.urls { Console.out("grona-mock \(GronaMockVersion.current) listening on \(url)") }
        warnWhenExposed(configuration, logger: logger)

        var received: Int32 = 0
        sigwait(&signals, &received)
        logger.info("stopping", [("signal", ChildProcess.name(of: received))])
        server.shutdown()
        server.wait()
        logger.info("stopped")
        return .success
    }

    /// Blocks `signals` in this thread before any other starts, so that every thread inherits the mask and
    /// only the caller's `sigwait` sees them; returns the set to wait on.
    static func blockSignals(_ list: [Int32]) -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in list { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        return signals
    }

    /// Starts the engine, or prints why it could not and returns nil.
    static func startOrReport(_ configuration: GronaMockConfiguration, logger: Logger) -> GronaMockServer? {
        do {
            return try GronaMockServer.start(configuration, logger: logger)
        } catch {
            Console.error("grona-mock: \(error)")
            return nil
        }
    }

    /// Warns when the port is reachable beyond this machine and nothing protects `/_mock`.
    static func warnWhenExposed(_ configuration: GronaMockConfiguration, logger: Logger) {
        let loopback =
            ["127.0.0.1", "localhost", "::1"].contains(configuration.http.host)
            || configuration.http.host.hasPrefix("127.")
        if !loopback && configuration.adminToken == nil {
            logger.warning(
                "listening beyond loopback without --admin-token: anyone who can reach this port can reset events, "
                    + "change workspaces and inject faults", [("host", configuration.http.host)])
        }
    }

    /// The engine's configuration and the logger from `options`' values (shared with `exec`, which takes
    /// the same options).
    static func makeConfiguration(
        _ parsed: ParsedOptions
    ) throws(UsageError) -> (GronaMockConfiguration, Logger) {
        let formatText = parsed.value("log-format") ?? "text"
        guard let format = Logger.Format(rawValue: formatText) else {
            throw UsageError("--log-format must be text or json, not \"\(formatText)\"")
        }
        let logger = Logger(format: format)
        var http = HTTPServer.Configuration()
        http.host = parsed.value("host") ?? http.host
        if parsed.value("port") == "none" {
            http.listeners = []
        } else {
            http.port = try parsed.integer("port", in: 0...65535) ?? http.port
        }
        if let tls = try tlsListener(parsed, logger: logger) { http.listeners.append(tls) }
        guard !http.listeners.isEmpty else { throw UsageError("--port none leaves nothing to serve: add --tls-port") }
        http.eventLoops = try parsed.integer("event-loops", in: 1...256) ?? http.eventLoops
        http.maxConnections = try parsed.integer("max-connections", in: 1...1_000_000) ?? http.maxConnections
        http.accessLog = parsed.flag("access-log")

        var configuration = GronaMockConfiguration(
            http: http,
            workspacesDirectory: parsed.value("workspaces") ?? "./workspaces",
            keysDirectory: parsed.value("keys") ?? "./keys",
            storage: try CommonOptions.storage(parsed) ?? .sqlite(path: CommonOptions.defaultDatabase),
            staticDirectory: parsed.value("static"),
            configMaxAge: try parsed.integer("config-max-age", in: 0...31_536_000) ?? 60,
            maxEvents: try parsed.integer("max-events", in: 1...1_000_000_000))
        configuration.maxClones = try parsed.integer("max-clones", in: 0...1_000_000) ?? configuration.maxClones
        if let bytes = try parsed.integer("events-offload-bytes", in: 0...(16 * 1024 * 1024)) {
            configuration.eventsOffloadBytes = bytes > 0 ? bytes : nil
        }
        if let token = parsed.value("admin-token") {
            // An empty GRONA_MOCK_ADMIN_TOKEN must not quietly mean "no token".
            if let problem = AdminToken.problem(with: token) { throw UsageError("--admin-token: \(problem)") }
            configuration.adminToken = token
        }
        return (configuration, logger)
    }

    /// A mock on 127.0.0.1 whose keys, (empty) workspace directory and database all live in `directory`: each
    /// loader reads only its own kind of file, and the directory goes whole at the end (`grona-mock conformance`).
    static func scratchConfiguration(in directory: String, port: Int) -> GronaMockConfiguration {
        var http = HTTPServer.Configuration()
        http.host = "127.0.0.1"
        http.port = port
        http.eventLoops = 2
        return GronaMockConfiguration(
            http: http, workspacesDirectory: directory, keysDirectory: directory,
            storage: .sqlite(path: directory + "/grona-mock.sqlite"))
    }

    /// The HTTPS listener of `--tls-port`, its certificate loaded now: a missing one stops start-up with what
    /// to run.
    private static func tlsListener(
        _ parsed: ParsedOptions, logger: Logger
    ) throws(UsageError) -> HTTPServer.Listener? {
        guard let port = try parsed.integer("tls-port", in: 0...65535) else { return nil }
        let home = getenv("HOME").map { String(cString: $0) }
        let directory = TLSDirectory(TLSDirectory.defaultPath(environment: home.map { ["HOME": $0] } ?? [:]))
        let certificate = parsed.value("tls-cert") ?? directory.serverCertificate
        let key = parsed.value("tls-key") ?? (parsed.value("tls-cert") == nil ? directory.serverKey : nil)
        guard let key else { throw UsageError("--tls-cert needs --tls-key, the certificate's private key") }
        for file in [certificate, key] where !FileSystem.exists(file) {
            throw UsageError(
                "--tls-port: no certificate at \(file): run 'grona-mock tls init' first, "
                    + "or name one with --tls-cert and --tls-key")
        }
        do {
            let listener = try TLSListener(certificateFile: certificate, keyFile: key, logger: logger)
            return .layered(port: port, transport: listener)
        } catch {
            throw UsageError("--tls-port: \(error)")
        }
    }
}
