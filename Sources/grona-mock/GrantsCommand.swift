import GronaMock
import GronaMockPlatform

/// `grona-mock grants issue` and `grona-mock grants verify`: what an order-backend developer needs to see
/// and check grants without writing a client.
enum GrantsCommand {
    static let usage = """
        USAGE: grona-mock grants issue --workspace KEY --customer ID [--workspaces DIR] [--keys DIR]
               grona-mock grants verify <token> (--workspace KEY | --jwks URL-or-FILE) [--audience KEY]

        issue   Prints the grants the customer holds now, as the grants endpoint would sign them: each
                token, then its decoded header and claims.
        verify  Checks a grant as an order backend must: the ES256 signature with the key its kid names,
                alg, typ grona-grant+jwt, aud (the workspace), and nbf/exp with 60 s of leeway. Prints the
                claims, or the exact reason it fails (exit 1). Keys come from the workspace's grant keys
                (--workspace, reading --workspaces and --keys) or from a JWKS (--jwks, a URL or a file);
                with --jwks, --audience names the workspace unless the URL does.

        OPTIONS:
        \(ParsedOptions.help(for: [workspace, customer, jwks, audience, CommonOptions.workspaces, CommonOptions.keys]))
        """

    private static let workspace = OptionSpec.value("workspace", "KEY", help: "The workspace key.")
    private static let customer = OptionSpec.value("customer", "ID", help: "The customer id (grants issue).")
    private static let jwks = OptionSpec.value("jwks", "URL|FILE", help: "A JWKS to verify with (grants verify).")
    private static let audience = OptionSpec.value("audience", "KEY", help: "The expected aud (grants verify).")

    static func run(_ arguments: [String], environment: [String: String]) -> ExitCode {
        let specs = [workspace, customer, jwks, audience, CommonOptions.workspaces, CommonOptions.keys]
        return CommonOptions.dispatch(
            arguments, command: "grants", usage: usage,
            subcommands: [
                .init(name: "issue", specs: specs, action: issue),
                .init(name: "verify", specs: specs, positionals: 1, action: verify),
            ], environment: environment)
    }

    // MARK: - issue

    private static func issue(_ options: ParsedOptions) -> ExitCode {
        guard let key = options.value("workspace"), let customerID = options.value("customer") else {
            Console.error("grona-mock grants issue: needs --workspace KEY and --customer ID")
            return .usage
        }
        guard let (workspace, keys) = loadWorkspace(key, options) else { return .failure }
        let now = ServerClock().nowSeconds()
        let claims = GrantIssuer.claims(for: customerID, in: workspace, now: now)
        do {
            let tokens = try GrantIssuer.sign(claims, workspace: workspace, keys: keys)
            Console.out("\(tokens.count) grant\(tokens.count == 1 ? "" : "s") for \(customerID) in \(key) at \(now)")
            for (token, claim) in zip(tokens, claims) {
                Console.out("\n\(token)")
                Console.out(
                    "header: {\"alg\":\"ES256\",\"kid\":\"\(workspace.grantKeyIDs.first ?? "")\",\"typ\":\"grona-grant+jwt\"}"
                )
                Console.out("claims: " + String(decoding: claim.json, as: UTF8.self))
            }
            return .success
        } catch {
            Console.error("grona-mock grants issue: \(error)")
            return .failure
        }
    }

    // MARK: - verify

    private static func verify(_ options: ParsedOptions) -> ExitCode {
        guard let token = options.positionals.first else {
            Console.error(
                "grona-mock grants verify: pass the token, as in 'grona-mock grants verify eyJhbGci… --workspace acme-market'"
            )
            return .usage
        }
        var keys: [String: P256PublicKey] = [:]
        var expectedAudience = options.value("audience")
        if let source = options.value("jwks") {
            do {
                keys = try loadJWKS(source)
            } catch {
                Console.error("grona-mock grants verify: cannot use the JWKS \(source): \(error)")
                return .failure
            }
            expectedAudience = expectedAudience ?? workspaceKey(inJWKSURL: source)
        } else if let key = options.value("workspace") {
            guard let (workspace, store) = loadWorkspace(key, options) else { return .failure }
            for kid in workspace.grantKeyIDs { keys[kid] = store[kid]?.publicKey }
            expectedAudience = expectedAudience ?? key
        } else {
            Console.error("grona-mock grants verify: needs --workspace KEY or --jwks URL-or-FILE")
            return .usage
        }
        guard let audience = expectedAudience else {
            Console.error("grona-mock grants verify: name the workspace the grant must be for with --audience KEY")
            return .usage
        }
        do {
            let claims = try GrantVerifier.verify(
                token, keys: keys, audience: audience, now: ServerClock().nowSeconds())
            Console.out("valid grant \(claims.grantID) for \(claims.subject) in \(claims.audience)")
            Console.out("claims: " + String(decoding: claims.json, as: UTF8.self))
            return .success
        } catch {
            Console.out("invalid: \(error)")
            return .failure
        }
    }

    private static func loadWorkspace(_ key: String, _ options: ParsedOptions) -> (Workspace, KeyStore)? {
        guard let keys = CommonOptions.loadKeys(options.value("keys") ?? "./keys") else { return nil }
        let path = (options.value("workspaces") ?? "./workspaces") + "/" + key + ".json"
        do {
            let outcome = WorkspaceValidator.validate(
                try FileSystem.read(path), expectedKey: key, keyIDs: Set(keys.keyIDs))
            guard let workspace = outcome.workspace, !outcome.hasErrors else {
                Console.error("grona-mock grants: \(path) has errors; run 'grona-mock config validate \(path)'")
                return nil
            }
            return (workspace, keys)
        } catch {
            Console.error("grona-mock grants: \(error)")
            return nil
        }
    }

    private static func loadJWKS(_ source: String) throws -> [String: P256PublicKey] {
        let bytes =
            source.hasPrefix("http://") || source.hasPrefix("https://")
            ? try HTTPGet.fetch(source) : try FileSystem.read(source, maxBytes: 1 << 20)
        return try JWK.publicKeys(fromSet: bytes)
    }

    /// `…/workspaces/<key>/jwks.json` names the workspace.
    private static func workspaceKey(inJWKSURL source: String) -> String? {
        let parts = source.split(separator: "/")
        guard parts.count >= 3, parts.last == "jwks.json", parts[parts.count - 3] == "workspaces" else { return nil }
        return String(parts[parts.count - 2])
    }
}
