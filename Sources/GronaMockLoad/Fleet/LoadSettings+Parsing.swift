/// The value forms of `grona-mock load`'s options, parsed here so that the command line and the tests share
/// them: durations (`500ms`, `10s`, `2m`, or seconds), the target URL, shares and the offline knob.
extension LoadSettings {
    /// A mistake in one option's value, said as a sentence that names the option.
    package struct OptionError: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    /// `500ms`, `10s`, `2m`, `1.5s` or a bare number of seconds; at most a day, never negative.
    package static func duration(_ text: String, option: String) throws(OptionError) -> Duration {
        let units: [(String, Double)] = [("ms", 0.001), ("us", 0.000_001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(text)
        var scale = 1.0
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            scale = factor
            break
        }
        guard let value = Double(number), value.isFinite, value >= 0, value * scale <= 86_400 else {
            throw OptionError("--\(option) must be a duration such as 500ms, 10s or 2m (up to a day), not \"\(text)\"")
        }
        return .nanoseconds(Int64((value * scale * 1e9).rounded()))
    }

    /// `http://host:port` or `https://host:port` (a trailing `/` allowed; port 80 or 443 by default): `isSecure`
    /// tells which. `option` names where the text came from in a refusal: `--url`, or the environment variable
    /// that gave it.
    package static func target(_ text: String, option: String = "--url") throws(OptionError) -> (
        host: String, port: Int
    ) {
        guard let scheme = ["http://", "https://"].first(where: { text.hasPrefix($0) }) else {
            throw OptionError(
                "\(option) must be an http:// or https:// URL such as http://127.0.0.1:8080, not "
                    + "\"\(redacted(text))\"")
        }
        var rest = text.dropFirst(scheme.count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        // User information is refused, not sent: the fleet authenticates with --secret-key, and a password
        // in a URL must not be echoed into a CI log (so the message shows it as ***@).
        guard !rest.contains("@") else {
            throw OptionError(
                "\(option) must not carry a user or password (\"\(redacted(text))\"): give the service's "
                    + "address only, and the secret key with --secret-key")
        }
        guard !rest.contains("/"), !rest.contains("?"), !rest.isEmpty else {
            throw OptionError("\(option) takes no path: the endpoints' paths are the contract's (\"\(text)\")")
        }
        var host = String(rest)
        var port = scheme == "https://" ? 443 : 80
        if rest.hasPrefix("[") {
            // [IPv6]:port
            guard let close = rest.firstIndex(of: "]") else {
                throw OptionError("\(option): unclosed [ in \"\(text)\"")
            }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let tail = rest[rest.index(after: close)...]
            if tail.hasPrefix(":") { port = try portNumber(String(tail.dropFirst()), text, option) }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            port = try portNumber(String(rest[rest.index(after: colon)...]), text, option)
        }
        guard !host.isEmpty else { throw OptionError("\(option) has no host: \"\(text)\"") }
        // The host goes into every request's Host line: a name, an IPv4 address, or (bracketed) an IPv6 one.
        let allowed = rest.hasPrefix("[") ? "0123456789abcdefABCDEF:.%" : ""
        guard host.unicodeScalars.allSatisfy({ isHostCharacter($0) || allowed.unicodeScalars.contains($0) }) else {
            throw OptionError("\(option): the host may hold letters, digits, '.', '-' and '_' only, not \"\(host)\"")
        }
        return (host, port)
    }

    /// `text` with anything up to an `@` in its authority shown as `***`: what a refusal may repeat.
    static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.firstRange(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<schemeEnd.upperBound]) + "***" + String(rest[at...])
    }

    /// `[a-z0-9-]{1,16}`: the run tag starts every install, visit and event id of the run.
    package static func runTag(_ text: String) throws(OptionError) -> String {
        let bytes = text.utf8
        guard (1...16).contains(bytes.count),
            bytes.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") })
        else {
            throw OptionError("--run-tag must be 1 to 16 of a-z, 0-9 and '-', not \"\(text)\"")
        }
        return text
    }

    private static func isHostCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || "._-~".unicodeScalars.contains(scalar))
    }

    /// A secret key or token as it goes into `Authorization: Bearer …`: visible ASCII only (RFC 6750's
    /// token68 is narrower still), so that no value can end the line or start another.
    package static func credential(_ text: String, option: String) throws(OptionError) -> String {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw OptionError("--\(option) must be visible ASCII characters without spaces")
        }
        return text
    }

    private static func portNumber(_ text: String, _ url: String, _ option: String) throws(OptionError) -> Int {
        guard let port = Int(text), (1...65_535).contains(port) else {
            throw OptionError("\(option): the port must be 1 to 65535 in \"\(url)\"")
        }
        return port
    }

    /// A number from 0 to 1.
    package static func share(_ text: String, option: String) throws(OptionError) -> Double {
        guard let value = Double(text), (0...1).contains(value) else {
            throw OptionError("--\(option) must be a share from 0 to 1, not \"\(text)\"")
        }
        return value
    }

    /// `F:D`, a share of installs and how long they stay offline: `0.1:30s`.
    package static func offline(_ text: String) throws(OptionError) -> (Double, Duration) {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else {
            throw OptionError("--offline must be SHARE:DURATION such as 0.1:30s, not \"\(text)\"")
        }
        return (try share(String(parts[0]), option: "offline"), try duration(String(parts[1]), option: "offline"))
    }

    /// A rate in visits per second: positive (or, for `--ramp-from`, zero), finite, at most a million.
    package static func rate(_ text: String, option: String, allowZero: Bool) throws(OptionError) -> Double {
        guard let value = Double(text), value.isFinite, allowZero ? value >= 0 : value > 0, value <= 1_000_000 else {
            throw OptionError(
                "--\(option) must be a number of visits per second \(allowZero ? "from 0" : "above 0") up to 1000000, not \"\(text)\""
            )
        }
        return value
    }
}
