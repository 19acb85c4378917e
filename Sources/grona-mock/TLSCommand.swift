import GronaMockTLS
import GronaMockTLSCore

/// `grona-mock tls init` and `grona-mock tls trust`: a local certificate authority for HTTPS on simulators,
/// emulators and devices (docs/tls.md).
enum TLSCommand {
    static let directory = OptionSpec.value(
        "dir", "DIR", environment: "GRONA_MOCK_TLS_DIR",
        help: "Where the CA and the server certificate live (default: ~/.grona-mock/tls, or ./tls without HOME).")

    static let usage = """
        USAGE: grona-mock tls init [--dir DIR] [--name NAME]... [--force]
               grona-mock tls trust [--dir DIR]

        init   Creates a local certificate authority (ECDSA P-256, name-constrained to local names and
               addresses) unless DIR already has one, and issues a server certificate for localhost, 127.0.0.1,
               ::1, 10.0.2.2 (the Android emulator's host), this machine's host name and LAN addresses, and each
               --name. Re-running keeps the CA (devices that trust it need nothing new) and reissues the server
               certificate; a serving mock picks it up by itself. The CA key is written 0600 and never printed.
        trust  Prints how to trust the CA on macOS, the iOS simulator and devices, the Android emulator, curl
               and URLSession, and exports the CA as PEM and DER.

        Then: grona-mock serve --tls-port 8443

        OPTIONS:
        \(ParsedOptions.help(for: [directory, name, force]))
        """

    static let name = OptionSpec.value(
        "name", "NAME", help: "One more DNS name or IP address for the server certificate; repeat for several.")
    static let force = OptionSpec.flag(
        "force", help: "Replace the CA too (every device must then trust the new one).")

    static func run(_ arguments: [String], environment: [String: String]) -> ExitCode {
        CommonOptions.dispatch(
            arguments, command: "tls", usage: usage,
            subcommands: [
                .init(name: "init", specs: [directory, name, force]) { initialize($0, environment: environment) },
                .init(name: "trust", specs: [directory]) { trust($0, environment: environment) },
            ], environment: environment)
    }

    static func tlsDirectory(_ parsed: ParsedOptions, environment: [String: String]) -> TLSDirectory {
        TLSDirectory(parsed.value("dir") ?? TLSDirectory.defaultPath(environment: environment))
    }

    private static func initialize(_ parsed: ParsedOptions, environment: [String: String]) -> ExitCode {
        let directory = tlsDirectory(parsed, environment: environment)
        let names: [SubjectName]
        do {
            names = try parsed.allValues("name").map { text throws(TLSError) in try SubjectName(parsing: text) }
        } catch {
            Console.error("grona-mock tls init: --name: \(error)")
            return .usage
        }
        do {
            let issued = try LocalAuthority.initialize(
                directory, names: names, replacingAuthority: parsed.flag("force"))
            if issued.authorityCreated {
                Console.out("created a new CA: \(directory.authorityCertificate) (key \(directory.authorityKey), 0600)")
            } else {
                Console.out("kept the existing CA: \(directory.authorityCertificate) (--force replaces it)")
            }
            if let mode = issued.exposedKeyMode {
                Console.error(
                    "warning: the CA key \(directory.authorityKey) could be read by other users (mode \(mode)); it is "
                        + "0600 now. If anyone else may have read it, run 'grona-mock tls init --force' and trust "
                        + "the new CA instead.")
            }
            Console.out("CA SHA-256 fingerprint: \(issued.authorityFingerprint)")
            Console.out("server certificate: \(directory.serverCertificate) (key \(directory.serverKey))")
            Console.out("  valid \(issued.serverLifetimeDays) days, serial \(issued.serverSerial)")
            Console.out("  names: \(issued.names.map(\.description).joined(separator: ", "))")
            Console.out("next: 'grona-mock tls trust' shows how to trust the CA; 'grona-mock serve --tls-port 8443'")
            return .success
        } catch {
            Console.error("grona-mock tls init: \(error)")
            return .failure
        }
    }

    private static func trust(_ parsed: ParsedOptions, environment: [String: String]) -> ExitCode {
        let directory = tlsDirectory(parsed, environment: environment)
        let fingerprint: String
        do {
            fingerprint = try LocalAuthority.export(directory)
        } catch {
            Console.error("grona-mock tls trust: \(error)\nRun 'grona-mock tls init' first.")
            return .failure
        }
        Console.out(TrustSteps.text(directory: directory, fingerprint: fingerprint))
        return .success
    }
}
