import GronaMock
import GronaMockJSON
import GronaMockPlatform

/// `grona-mock keys generate <kid>` and `grona-mock keys list`.
enum KeysCommand {
    static let usage = """
        USAGE: grona-mock keys generate <kid> [--keys DIR]
               grona-mock keys list [--keys DIR] [--format text|json]

        generate  Writes a new P-256 key to <keys>/<kid>.pem (PKCS#8, mode 0600) and prints its public half.
                  A key id is 1 to 64 of A-Z a-z 0-9 . _ -; an existing file is never overwritten.
        list      Prints every key: its id, its public half as base64 SPKI DER (the exact string
                  GronaOptions.configKeys and grantKeys take) and its JWK thumbprint (RFC 7638).
                  --format json prints each key's JWK as well.

        OPTIONS:
        \(ParsedOptions.help(for: [CommonOptions.keys, CommonOptions.format]))
        """

    static func run(_ arguments: [String], environment: [String: String]) -> ExitCode {
        CommonOptions.dispatch(
            arguments, command: "keys", usage: usage,
            subcommands: [
                .init(name: "generate", specs: [CommonOptions.keys], positionals: 1, action: generate),
                .init(name: "list", specs: [CommonOptions.keys, CommonOptions.format], action: list),
            ], environment: environment)
    }

    private static func generate(_ parsed: ParsedOptions) -> ExitCode {
        guard let kid = parsed.positionals.first else {
            Console.error(
                "grona-mock keys generate: name the key id, as in 'grona-mock keys generate acme-market-2027-04'")
            return .usage
        }
        guard KeyStore.isValidKeyID(kid) else {
            Console.error("grona-mock keys generate: \"\(kid)\" is not a key id: 1 to 64 of A-Z a-z 0-9 . _ -")
            return .usage
        }
        let directory = parsed.value("keys") ?? "./keys"
        let path = directory + "/" + kid + ".pem"
        do {
            try FileSystem.createDirectory(directory)
            let key = try P256SigningKey.generate()
            try FileSystem.write(Array(try key.pkcs8PEM().utf8), to: path, mode: 0o600, replace: false)
            Console.out("wrote \(path)")
            Console.out("kid   \(kid)")
            Console.out("spki  \(key.publicKey.spkiBase64)")
            Console.out("jwk   \(JWK(kid: kid, publicKey: key.publicKey).json)")
            return .success
        } catch {
            Console.error("grona-mock keys generate: \(error)")
            return .failure
        }
    }

    private static func list(_ parsed: ParsedOptions) -> ExitCode {
        guard let keys = CommonOptions.loadKeys(parsed.value("keys") ?? "./keys") else { return .failure }
        switch parsed.value("format") {
        case "json":
            let entries = keys.keyIDs.compactMap { kid -> String? in
                guard let key = keys[kid] else { return nil }
                let jwk = JWK(kid: kid, publicKey: key.publicKey)
                return
                    "{\"kid\":\(quoted(kid)),\"spki\":\"\(key.publicKey.spkiBase64)\",\"thumbprint\":\"\(jwk.thumbprint)\",\"jwk\":\(jwk.json)}"
            }
            Console.out("{\"keys\":[\(entries.joined(separator: ","))]}")
        case "text":
            let width = max(3, keys.keyIDs.map(\.count).max() ?? 0) + 2
            Console.out(pad("KID", width) + pad("SPKI (base64 DER, for GronaOptions)", 126) + "JWK THUMBPRINT")
            for kid in keys.keyIDs {
                guard let key = keys[kid] else { continue }
                let thumbprint = JWK(kid: kid, publicKey: key.publicKey).thumbprint
                Console.out(pad(kid, width) + pad(key.publicKey.spkiBase64, 126) + thumbprint)
            }
        case let other:
            Console.error("grona-mock keys list: --format must be text or json, not \"\(other ?? "")\"")
            return .usage
        }
        return .success
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - text.count))
    }

    private static func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).serialized(), as: UTF8.self)
    }
}
