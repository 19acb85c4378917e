/// A `postgres://` or `postgresql://` URL as libpq reads it (RFC 3986 with libpq's parameters in its query),
/// and the same URL with its password taken out, for logs, health and errors.
struct PostgresURL: Sendable, CustomStringConvertible {
    /// The URL as given, password included: handed to libpq only, never printed.
    let connectionString: String
    /// The URL without its password (from the user information and from a `password=` parameter).
    let description: String
    /// The password, as written and decoded, to blank out of any message that might quote it.
    let secrets: [String]
    /// Why the URL cannot be used as written, when it cannot: said before libpq sees it.
    let problem: String?

    /// Parameters whose values are secrets: a password, and the passphrase of a client key.
    static let secretKeywords: Set<String> = ["password", "sslpassword"]

    static let schemes = ["postgres://", "postgresql://"]

    /// True when `text` names a PostgreSQL database rather than an SQLite file.
    static func names(_ text: String) -> Bool { schemes.contains { text.hasPrefix($0) } }

    /// Nil unless `text` starts with one of `schemes`.
    init?(_ text: String) {
        guard let scheme = Self.schemes.first(where: { text.hasPrefix($0) }) else { return nil }
        connectionString = text
        let rest = text.dropFirst(scheme.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var secrets: [String] = []
        var kept = scheme
        var problem: String?
        if authority.filter({ $0 == "@" }).count > 1, let at = authority.lastIndex(of: "@") {
            // libpq ends the user information at the first "@" and would take the rest of a password for
            // the host, and quote it in its error: such a URL is refused, and nothing before the last "@" shown.
            problem =
                "the URL's user information holds more than one \"@\": write an \"@\" in the user or "
                + "password as %40"
            let userInformation = authority[..<at]
            secrets += [String(userInformation), Self.percentDecoded(String(userInformation))]
            secrets += userInformation.split(whereSeparator: { $0 == "@" || $0 == ":" }).map(String.init)
            kept += "***@" + authority[authority.index(after: at)...]
        } else if let at = authority.lastIndex(of: "@") {
            let userInformation = authority[..<at]
            let user = userInformation.prefix { $0 != ":" }
            if user.count < userInformation.count {
                let password = String(userInformation.dropFirst(user.count + 1))
                secrets += [password, Self.percentDecoded(password)]
            }
            kept += user + "@" + authority[authority.index(after: at)...]
        } else {
            kept += authority
        }
        let pathAndQuery = rest[authorityEnd...]
        let queryStart = pathAndQuery.firstIndex(of: "?") ?? pathAndQuery.endIndex
        kept += pathAndQuery[..<queryStart]
        if queryStart < pathAndQuery.endIndex {
            var parameters: [Substring] = []
            for parameter in pathAndQuery[pathAndQuery.index(after: queryStart)...].split(separator: "&") {
                // libpq decodes the keyword as well as the value (`pass%77ord=` is a password).
                let keyword = Self.percentDecoded(String(parameter.prefix { $0 != "=" })).lowercased()
                guard Self.secretKeywords.contains(keyword) else {
                    parameters.append(parameter)
                    continue
                }
                let value = String(parameter.drop { $0 != "=" }.dropFirst())
                secrets += [value, Self.percentDecoded(value)]
            }
            if !parameters.isEmpty { kept += "?" + parameters.joined(separator: "&") }
        }
        description = kept
        self.secrets = secrets.filter { !$0.isEmpty }
        self.problem = problem
    }

    /// libpq's connection parameters: ours first, then the URL, which overrides them (libpq processes the
    /// keywords in order and expands the `dbname` URL in place). `connect_timeout` keeps a connection from
    /// waiting on a server that does not answer; TCP keepalives and `tcp_user_timeout` make a connection to
    /// a host that vanished without a reset fail in about 30 s instead of holding the writer for ever.
    var connectionParameters: [(keyword: String, value: String)] {
        [
            ("connect_timeout", "5"), ("keepalives_idle", "10"), ("keepalives_interval", "5"),
            ("keepalives_count", "3"), ("tcp_user_timeout", "30000"), ("application_name", "grona-mock"),
            ("dbname", connectionString),
        ]
    }

    /// `%XX` sequences decoded, as libpq decodes the URL; a malformed one is kept as written.
    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
