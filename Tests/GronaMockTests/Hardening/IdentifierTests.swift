import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Identifiers are checked on every path that takes one, by one validator per kind (contract §1: "anything else
/// is rejected, so no id can become a path"), and `allowInvalid`, which relaxes content checks, never relaxes
/// them (issue 28).
@Suite("Identifiers on every write route")
struct IdentifierTests {
    /// Workspace keys and campaign ids a broken or hostile client sends.
    static let badKeys = [
        "a" + String(repeating: "b", count: 200), "../x", "a/b", "Bad_Key", "UPPER", "tab\there", "line\nbreak",
        "nul\u{0}byte", "ctl\u{1}", "ümlaut", "-leading", "a b",
    ]

    /// Secret keys that break `^[!-~]{8,200}$`.
    static let badSecrets = [
        "", "a", "seven77", String(repeating: "s", count: 201), "has space1", "tab\tsecret", "cr\r\nlf-secret",
        "nul\u{0}secret", "ünïcødé-secret",
    ]

    /// `text` as one path segment: every byte but the unreserved ones percent-encoded.
    static func segment(_ text: String) -> String {
        text.utf8.map { byte in
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || [UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~")].contains(byte)
            return unreserved ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
    }

    static func call(_ port: Int, _ method: String, _ target: String, _ body: String = "") throws -> RawClient.Response
    {
        try fetch(port, Control.request(method, target, body: body))
    }

    /// The served keys: nothing a refused request named may appear among them.
    static func served(_ port: Int) throws -> [String] {
        let listing = try JSONParser().parse(try call(port, "GET", "/_mock/workspaces").body)
        return (listing["workspaces"]?.arrayValue ?? []).compactMap { $0["workspaceKey"]?.stringValue }.sorted()
    }

    @Test("a bad workspace key in the path is 400 invalid_identifier on every route, with or without allowInvalid")
    func pathKeys() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let port = server.port
            let document = MockFixture.workspace("shop")
            for key in Self.badKeys {
                let path = "/_mock/workspaces/\(Self.segment(key))"
                let requests: [(String, String, String)] = [
                    ("PUT", path, document), ("PUT", path + "?allowInvalid=true", document),
                    ("POST", path + "/clone", #"{"workspaceKey":"run-1"}"#),
                    ("POST", path + "/campaigns/home-hero/kill", ""),
                    ("POST", path + "/campaigns/home-hero/revive", ""),
                    ("POST", path + "/rotate", #"{"keys":"config"}"#), ("DELETE", path, ""), ("GET", path, ""),
                    ("GET", path + "/sdk-options", ""),
                ]
                for (method, target, body) in requests {
                    let response = try Self.call(port, method, target, body)
                    #expect(response.status == 400, "\(method) \(target) answered \(response.status)")
                    #expect(EventsAPI.errorCode(response) == "invalid_identifier", "\(method) \(target)")
                    #expect(EventsAPI.errorMessage(response).contains("is not a workspace key"), "\(method) \(target)")
                }
            }
            // An empty segment matches no route at all.
            #expect(try Self.call(port, "PUT", "/_mock/workspaces/", document).status == 404)
            #expect(try Self.served(port) == ["shop"])
        }
    }

    @Test("a bad campaign id in kill and revive is 400 invalid_identifier")
    func campaignIDs() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            for id in Self.badKeys where id != "Bad_Key" && id != "UPPER" && id != "-leading" {
                for action in ["kill", "revive"] {
                    let target = "/_mock/workspaces/shop/campaigns/\(Self.segment(id))/\(action)"
                    let response = try Self.call(server.port, "POST", target)
                    #expect(response.status == 400, "\(target) answered \(response.status)")
                    #expect(EventsAPI.errorCode(response) == "invalid_identifier", "\(target)")
                }
            }
            // Upper case is a valid campaign id: a well-formed id the workspace lacks is 404.
            let unknown = try Self.call(server.port, "POST", "/_mock/workspaces/shop/campaigns/UPPER/kill")
            #expect(unknown.status == 404)
            #expect(EventsAPI.errorCode(unknown) == "unknown_campaign")
        }
    }

    @Test("a clone's workspaceKey and secretKey are checked, and the secret is never quoted back")
    func cloneBody() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let port = server.port
            for key in Self.badKeys + [""] {
                let body = JSONValue.object(["workspaceKey": .string(key)]).description
                let response = try Self.call(port, "POST", "/_mock/workspaces/shop/clone", body)
                #expect(response.status == 400, "\(body) answered \(response.status)")
                #expect(EventsAPI.errorCode(response) == "invalid_identifier", "\(body)")
                #expect(EventsAPI.errorMessage(response).hasPrefix("workspaceKey:"), "\(body)")
            }
            for secret in Self.badSecrets {
                let body = JSONValue.object(["workspaceKey": "run-1", "secretKey": .string(secret)]).description
                let response = try Self.call(port, "POST", "/_mock/workspaces/shop/clone", body)
                #expect(response.status == 400, "\(body) answered \(response.status)")
                #expect(EventsAPI.errorCode(response) == "invalid_identifier", "\(body)")
                let message = EventsAPI.errorMessage(response)
                #expect(message.contains("secretKey"), "\(message)")
                #expect(secret.count < 3 || !message.contains(secret), "the secret was quoted back: \(message)")
            }
            // Not a string: refused, never replaced by a generated secret.
            let number = try Self.call(
                port, "POST", "/_mock/workspaces/shop/clone", #"{"workspaceKey":"run-1","secretKey":12345678}"#)
            #expect(number.status == 400)
            #expect(EventsAPI.errorCode(number) == "invalid_request")
            // A misspelt field is refused rather than ignored.
            let misspelt = try Self.call(
                port, "POST", "/_mock/workspaces/shop/clone", #"{"workspaceKey":"run-1","ttl":60}"#)
            #expect(misspelt.status == 400)
            #expect(EventsAPI.errorMessage(misspelt).contains("ttl"))
            #expect(try Self.served(port) == ["shop"])

            // The bounds are allowed, and the clone's secret then works on the grants endpoint.
            for (key, secret) in [("run-8", "12345678"), ("run-200", String(repeating: "~", count: 200))] {
                let body = JSONValue.object(["workspaceKey": .string(key), "secretKey": .string(secret)]).description
                let created = try Self.call(port, "POST", "/_mock/workspaces/shop/clone", body)
                #expect(created.status == 201, "\(key): \(String(decoding: created.body, as: UTF8.self))")
                let grants = try fetch(port, GrantsEndpointTests.request(#"{"customerID":"c-1"}"#, secret: secret))
                #expect(grants.status == 200, "\(key)")
            }
        }
    }

    @Test(
        "identifiers and signing keys in a PUT document are refused with 422 even with allowInvalid, and nothing is served",
        arguments: [
            ("workspaceKey", #""shop""#, #""Bad_Key""#), ("workspaceKey", #""shop""#, #""other""#),
            ("secretKeys[0]", "sk_test_shop_secret", "short"), ("configKeys[0]", #""cfg-1""#, #""../cfg""#),
            ("campaigns[0].id", #""home-hero""#, #""../x""#), ("variants[1].id", #""id": "banner""#, #""id": "a/b""#),
            // What the server needs to serve the workspace at all is never relaxed either: its key, its secret
            // keys, and signing keys that exist.
            ("workspaceKey", #""workspaceKey": "shop", "#, ""),
            ("secretKeys", #"["sk_test_shop_secret"]"#, "[]"),
            ("configKeys[0]", #""cfg-1""#, #""cfg-missing""#),
            ("grantKeys", #""grantKeys": ["grt-1","grt-2"]"#, #""grantKeys": []"#),
        ])
    func documentIdentifiers(path: String, find: String, replacement: String) throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let body = MockFixture.workspace("shop").replacingOccurrences(of: find, with: replacement)
            #expect(body != MockFixture.workspace("shop"))
            let before = try JSONParser().parse(try Self.call(server.port, "GET", "/_mock/workspaces/shop").body)
            for target in ["/_mock/workspaces/shop", "/_mock/workspaces/shop?allowInvalid=true"] {
                let response = try Self.call(server.port, "PUT", target, body)
                #expect(response.status == 422, "\(target) answered \(response.status)")
                #expect(EventsAPI.errorCode(response) == "invalid_workspace")
                let message = EventsAPI.errorMessage(response)
                #expect(message.contains(path), "\(message)")
                #expect(!message.contains("Add ?allowInvalid=true"), "\(message)")
            }
            let after = try JSONParser().parse(try Self.call(server.port, "GET", "/_mock/workspaces/shop").body)
            #expect(after["revision"] == before["revision"])
            #expect(after["origin"] == "file")
        }
    }

    @Test("content errors still say allowInvalid serves them, and it does")
    func contentErrorsStillRelaxed() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let body = MockFixture.workspace("shop").replacingOccurrences(of: #""home_top""#, with: #""home_topp""#)
            let refused = try Self.call(server.port, "PUT", "/_mock/workspaces/shop", body)
            #expect(refused.status == 422)
            #expect(EventsAPI.errorMessage(refused).contains("Add ?allowInvalid=true"))
            let served = try Self.call(server.port, "PUT", "/_mock/workspaces/shop?allowInvalid=true", body)
            #expect(served.status == 200)
        }
    }

    @Test("a workspace query parameter that is not a key is 400 invalid_query on reset, events, waits and checks")
    func queryKeys() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            for key in Self.badKeys {
                let query = "workspace=\(Self.segment(key))"
                for (method, target) in [
                    ("POST", "/_mock/reset?\(query)"), ("DELETE", "/_mock/events?\(query)"),
                    ("GET", "/_mock/events?\(query)"), ("GET", "/_mock/events/violations?\(query)"),
                    ("GET", "/_mock/events/summary?\(query)"), ("GET", "/_mock/events/funnels?\(query)"),
                    ("GET", "/_mock/events/wait?count=1&timeoutMs=0&\(query)"),
                ] {
                    let response = try Self.call(server.port, method, target)
                    #expect(response.status == 400, "\(method) \(target) answered \(response.status)")
                    #expect(EventsAPI.errorCode(response) == "invalid_query", "\(method) \(target)")
                    #expect(EventsAPI.errorMessage(response).contains("workspace"), "\(method) \(target)")
                }
            }
        }
    }
}
