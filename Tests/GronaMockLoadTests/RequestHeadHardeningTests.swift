import Testing

@testable import GronaMockLoad

/// What goes into the fleet's request heads from outside: the options (`--url`'s host, the secret key, the
/// admin token) and the server itself (the `ETag` sent back in `If-None-Match`). None may end a header line
/// or start another.
@Suite struct RequestHeadHardeningTests {
    @Test(arguments: [
        "http://127.0.0.1\r\nX-Injected: 1:8080", "http://exa mple.com:80", "http://host\u{0}name",
        "http://[::1\r\n]:80",
        "http://h\u{7F}st/",
    ])
    func aHostThatWouldBreakTheHostLineIsAUsageError(url: String) {
        #expect(throws: LoadSettings.OptionError.self) { try LoadSettings.target(url) }
    }

    @Test func hostsOfEveryFormAreTaken() throws {
        #expect(try LoadSettings.target("http://ingest-1.example.com:8080") == ("ingest-1.example.com", 8080))
        #expect(try LoadSettings.target("http://[fe80::1%eth0]:80") == ("fe80::1%eth0", 80))
    }

    @Test(arguments: ["sk_live\r\nX-Injected: 1", "sk live", "sk\u{0}", "ключ"])
    func aCredentialThatWouldBreakItsLineIsAUsageError(value: String) {
        #expect(throws: LoadSettings.OptionError.self) {
            try LoadSettings.credential(value, option: "secret-key")
        }
    }

    @Test func aCredentialOfVisibleCharactersIsTaken() throws {
        #expect(
            try LoadSettings.credential("sk_test_acme-market.1/+=", option: "secret-key") == "sk_test_acme-market.1/+=")
    }

    /// An IPv6 host is bracketed in `Host` (RFC 9112 §3.2, RFC 3986 §3.2.2).
    @Test func anIPv6HostIsBracketedInTheHostField() throws {
        let client = try HTTPClient(HTTPClient.Configuration(host: "::1", port: 9000))
        #expect(client.host == "[::1]:9000")
        let named = try HTTPClient(HTTPClient.Configuration(host: "localhost", port: 80))
        #expect(named.host == "localhost:80")
    }

    /// An `ETag` with a bare CR (a line ends only at LF here), a control character or 2 KiB of text is not kept,
    /// so it never goes back out in `If-None-Match`; a fair one is.
    @Test(arguments: ["\"a\"\rX-Injected: 1", "\"a\u{1}\"", "\"" + String(repeating: "e", count: 2048) + "\""])
    func anETagThatCannotGoBackOutIsIgnored(etag: String) throws {
        let text = "HTTP/1.1 200 OK\r\nETag: \(etag)\r\nContent-Length: 0\r\n\r\n"
        let parser = try HTTPResponseParserTests.parse(text, splits: [])
        #expect(parser.isComplete)
        #expect(parser.head.etag == nil)
    }

    @Test func aFairETagIsKept() throws {
        let parser = try HTTPResponseParserTests.parse(
            "HTTP/1.1 200 OK\r\nETag: W/\"rev-12\"\r\nContent-Length: 0\r\n\r\n", splits: [])
        #expect(parser.head.etag == "W/\"rev-12\"")
    }
}
