import Foundation
import GronaMockJSON
import GronaMockTestSupport
import Testing

@testable import GronaMock

/// `/_mock/ui`: the dashboard's page and files, compiled into the binary, public, with headers that allow no
/// inline script, no other origin and no framing, and never a CORS header (docs/dashboard.md).
@Suite("GET /_mock/ui")
struct DashboardRoutesTests {
    static let policy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func withServer<T>(token: String? = nil, _ body: (GronaMockServer) throws -> T) throws -> T {
        try MockFixture.standard().withServer(configure: { $0.adminToken = token }, body)
    }

    @Test(
        "the page and each file load without the token, with the CSP and their media type, and no CORS",
        arguments: [
            ("/_mock/ui", "text/html"), ("/_mock/ui/app.js", "text/javascript"),
            ("/_mock/ui/live.js", "text/javascript"), ("/_mock/ui/dashboard.css", "text/css"),
        ])
    func served(path: String, mediaType: String) throws {
        try Self.withServer(token: "secret-token") { server in
            let response = try fetch(
                server.port, "GET \(path) HTTP/1.1\r\nHost: x\r\nOrigin: https://elsewhere.example\r\n\r\n")
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix(mediaType) == true)
            #expect(response.header("Content-Security-Policy") == Self.policy)
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Referrer-Policy") == "no-referrer")
            #expect(response.headers.allSatisfy { !$0.0.lowercased().hasPrefix("access-control-") })
            #expect(!response.body.isEmpty)
        }
    }

    @Test("the page loads its script as a module from this origin, and no inline script or style")
    func pageHasNoInlineCode() throws {
        try Self.withServer { server in
            let page = try fetch(server.port, "GET /_mock/ui HTTP/1.1\r\nHost: x\r\n\r\n").text
            #expect(page.contains("<script type=\"module\" src=\"/_mock/ui/app.js\"></script>"))
            #expect(page.components(separatedBy: "<script").count == 2)
            #expect(!page.contains("<style") && !page.contains("style="))
            #expect(page.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil, "an inline handler")
        }
    }

    @Test(
        "an unknown file's 404 carries the same CSP and nosniff as the files: it echoes the path asked for",
        arguments: ["/_mock/ui/nothing.js", "/_mock/ui/%3Cscript%3Ealert(1)%3C%2Fscript%3E", "/_mock/ui/index.html"])
    func unknownFileIsInert(path: String) throws {
        try Self.withServer(token: "secret-token") { server in
            let response = try fetch(server.port, "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(response.status == 404)
            #expect(response.header("Content-Security-Policy") == Self.policy)
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        }
    }

    @Test(
        "the router's own refusals under /_mock/ui carry the CSP too: a path no route takes, and a wrong method",
        arguments: [
            ("GET /_mock/ui/a/%3Cscript%3E", 404), ("POST /_mock/ui", 405), ("DELETE /_mock/ui/app.js", 405),
            ("GET /_mock/ui/", 404),
        ])
    func routerRefusalsAreInert(requestLine: String, status: Int) throws {
        try Self.withServer(token: "secret-token") { server in
            let response = try fetch(server.port, "\(requestLine) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            #expect(response.status == status)
            #expect(response.header("Content-Security-Policy") == Self.policy)
            #expect(response.header("X-Content-Type-Options") == "nosniff")
        }
    }

    @Test("a refusal outside /_mock/ui, on a path that only starts like it, is not dressed as the dashboard's")
    func refusalsElsewhereAreUnchanged() throws {
        try Self.withServer { server in
            let response = try fetch(server.port, "GET /_mock/uix HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(response.status == 404)
            #expect(response.header("Content-Security-Policy") == nil)
        }
    }

    @Test("vocabulary.json offers the fault endpoints, kinds and parameters of the engine's enums, without a token")
    func vocabularyIsTheEngines() throws {
        try Self.withServer(token: "secret-token") { server in
            let response = try fetch(server.port, "GET /_mock/ui/vocabulary.json HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let json = try JSONParser().parse(response.body)
            let endpoints = json["faultEndpoints"]?.arrayValue?.compactMap(\.stringValue)
            #expect(endpoints == ["all"] + FaultEngine.Endpoint.allCases.map(\.rawValue))
            let kinds = json["faultKinds"]?.arrayValue ?? []
            #expect(kinds.compactMap { $0["kind"]?.stringValue } == FaultKind.allCases.map(\.rawValue))
            let common = json["faultCommonParameters"]?.arrayValue?.compactMap(\.stringValue)
            #expect(common == FaultRule.commonParameters)
            for (entry, kind) in zip(kinds, FaultKind.allCases) {
                let parameters = entry["parameters"]?.arrayValue?.compactMap(\.stringValue)
                #expect(parameters == kind.parameters, "\(kind)")
                #expect(entry["endpoint"]?.stringValue == kind.onlyEndpoint?.rawValue, "\(kind)")
            }
            // And the page keeps no copy of its own to drift from them.
            let faults = try fetch(server.port, "GET /_mock/ui/faults.js HTTP/1.1\r\nHost: x\r\n\r\n").text
            for kind in FaultKind.allCases where kind.rawValue.contains("_") {
                #expect(!faults.contains("\"\(kind.rawValue)\""), "faults.js names \(kind.rawValue) itself")
            }
            for name in FaultRule.commonParameters {
                #expect(!faults.contains("\"\(name)\""), "faults.js names \(name) itself")
            }
        }
    }

    @Test("vocabulary.json names the arms and the funnel's steps from the engine's enums; funnels.js keeps no copy")
    func funnelVocabulary() throws {
        try Self.withServer(token: "secret-token") { server in
            let response = try fetch(server.port, "GET /_mock/ui/vocabulary.json HTTP/1.1\r\nHost: x\r\n\r\n")
            let json = try JSONParser().parse(response.body)
            #expect(json["arms"]?.arrayValue?.compactMap(\.stringValue) == Arm.allCases.map(\.rawValue))
            #expect(json["treatmentArm"]?.stringValue == Arm.treatment.rawValue)
            #expect(json["controlArm"]?.stringValue == Arm.control.rawValue)
            #expect(json["funnelSteps"]?.arrayValue?.compactMap(\.stringValue) == EventFunnels.steps.map(\.rawValue))
            #expect(json["funnelPurchases"]?.stringValue == EventType.purchase.rawValue)
            #expect(json["funnelConversion"]?["from"]?.stringValue == EventFunnels.conversion.from.rawValue)
            #expect(json["funnelConversion"]?["to"]?.stringValue == EventFunnels.conversion.to.rawValue)
            let funnels = try fetch(server.port, "GET /_mock/ui/funnels.js HTTP/1.1\r\nHost: x\r\n\r\n").text
            for name in Arm.allCases.map(\.rawValue) + EventType.allCases.map(\.rawValue) {
                #expect(!funnels.contains("\"\(name)\"") && !funnels.contains("'\(name)'"), "funnels.js names \(name)")
            }
        }
    }

    @Test("server.json says whether a token is needed; an unknown file is 404; the data stays behind the token")
    func serverInfoAndUnknownFiles() throws {
        try Self.withServer(token: "secret-token") { server in
            let info = try fetch(server.port, "GET /_mock/ui/server.json HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(info.text == #"{"adminToken":true}"#)
            #expect(try fetch(server.port, "GET /_mock/ui/nothing.js HTTP/1.1\r\nHost: x\r\n\r\n").status == 404)
            #expect(try fetch(server.port, "GET /_mock/ui/..%2Fetc HTTP/1.1\r\nHost: x\r\n\r\n").status == 404)
            #expect(try fetch(server.port, "GET /_mock/workspaces HTTP/1.1\r\nHost: x\r\n\r\n").status == 401)
        }
        try Self.withServer { server in
            let info = try fetch(server.port, "GET /_mock/ui/server.json HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(info.text == #"{"adminToken":false}"#)
        }
    }

    /// The names of the engine's vocabularies that a page could show or compare, each a quoted literal nowhere
    /// in the page's scripts: what the page needs of them comes from vocabulary.json.
    static let pageVocabulary: [(String, [String])] = [
        ("event type", EventType.allCases.map(\.rawValue)), ("arm", Arm.allCases.map(\.rawValue)),
        ("placement", Placement.allCases.map(\.rawValue)), ("screen type", ScreenType.allCases.map(\.rawValue)),
        ("fault kind", FaultKind.allCases.map(\.rawValue)), ("fault parameter", FaultRule.commonParameters),
        ("campaign status", Campaign.Status.allCases.map(\.rawValue)),
        ("decision type", DecisionType.allCases.map(\.rawValue)),
        ("component type", ComponentType.allCases.map(\.rawValue)),
        ("treatment type", TreatmentType.allCases.map(\.rawValue)),
    ]

    /// Words that are also a vocabulary's names but mean something else where a script says them: the live
    /// feed's connection state and a column heading (live.js), the default event type of a server-sent event
    /// (sse.js, WHATWG HTML §9.2.6) and a column heading (violations.js).
    static let otherMeanings: [String: Set<String>] = [
        "live.js": ["live", "status"], "sse.js": ["message"], "violations.js": ["message"],
    ]

    @Test("vocabulary.json serves the event types, the kill switch's status and the arms; no script keeps a copy")
    func noScriptKeepsAVocabulary() throws {
        try Self.withServer { server in
            let response = try fetch(server.port, "GET /_mock/ui/vocabulary.json HTTP/1.1\r\nHost: x\r\n\r\n")
            let json = try JSONParser().parse(response.body)
            #expect(json["eventTypes"]?.arrayValue?.compactMap(\.stringValue) == EventType.allCases.map(\.rawValue))
            #expect(json["killedStatus"]?.stringValue == Campaign.Status.killed.rawValue)
            let scripts = DashboardAssets.files.keys.filter { $0.hasSuffix(".js") }.sorted()
            #expect(scripts.count >= 10)
            for name in scripts {
                let text = try fetch(server.port, "GET /_mock/ui/\(name) HTTP/1.1\r\nHost: x\r\n\r\n").text
                for (noun, values) in Self.pageVocabulary {
                    for value in values where text.contains("\"\(value)\"") || text.contains("'\(value)'") {
                        if Self.otherMeanings[name]?.contains(value) == true { continue }
                        Issue.record("\(name) names the \(noun) \(value) itself")
                    }
                }
            }
        }
    }
}
