import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// The fault kinds are one enum, `FaultKind`: the API's errors list it, and docs/faults.md and the OpenAPI
/// document describe each case. A kind added without its documentation, or documented but never parsed,
/// fails here.
@Suite("Fault kinds: one enum, documented and refused by name")
struct FaultKindDocumentationTests {
    static let docs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8)
    }

    /// The names in a YAML flow sequence, `[a, b,\n c]`, starting at `open`.
    static func flowList(_ text: String, from open: String.Index) -> Set<String> {
        guard let close = text[open...].firstIndex(of: "]") else { return [] }
        let list = text[text.index(after: open)..<close]
        return Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    }

    /// The `enum` of the `FaultKind` schema in docs/openapi.yaml.
    static func openAPIKinds() throws -> Set<String> {
        let text = try text("openapi.yaml")
        guard let schema = text.range(of: "\n    FaultKind:\n"),
            let list = text.range(of: "enum: [", range: schema.upperBound..<text.endIndex)
        else { return [] }
        return flowList(text, from: text.index(before: list.upperBound))
    }

    /// The `FaultRule` schema's kinds that only one endpoint takes: `if kind in [...] then endpoint const X`.
    static func openAPIEndpointKinds() throws -> [String: Set<String>] {
        let lines = try text("openapi.yaml").split(separator: "\n").map(String.init)
        var kinds: [String: Set<String>] = [:]
        for (index, line) in lines.enumerated().dropLast()
        where line.contains("if: { properties: { kind: { enum: [") {
            let then = lines[index + 1]
            guard let open = line.range(of: "enum: ["), let constant = then.range(of: "endpoint: { const: ") else {
                continue
            }
            let endpoint = then[constant.upperBound...].prefix { $0 != " " && $0 != "}" }
            kinds[String(endpoint), default: []].formUnion(flowList(line, from: line.index(before: open.upperBound)))
        }
        return kinds
    }

    /// The `### \`name\`` headings of docs/faults.md's "The kinds" section, with the rest of each line.
    static func documentedKinds() throws -> [String: String] {
        let text = try text("faults.md")
        guard let section = text.range(of: "\n## The kinds\n") else { return [:] }
        var kinds: [String: String] = [:]
        for line in text[section.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("### `") else { continue }
            let rest = line.dropFirst("### `".count)
            let name = rest.prefix { $0 != "`" }
            kinds[String(name)] = String(rest.dropFirst(name.count + 1))
        }
        return kinds
    }

    @Test("docs/faults.md has a section for every kind, saying which endpoint takes it, and no other")
    func faultsMarkdown() throws {
        let documented = try Self.documentedKinds()
        for kind in FaultKind.allCases {
            let heading = try #require(documented[kind.rawValue], "docs/faults.md has no ### `\(kind.rawValue)`")
            if let only = kind.onlyEndpoint {
                #expect(heading.hasPrefix(" (\(only.rawValue))"), "### `\(kind.rawValue)` does not say \(only)")
            }
        }
        let declared = Set(FaultKind.allCases.map(\.rawValue))
        #expect(Set(documented.keys).subtracting(declared).sorted() == [], "docs/faults.md documents other kinds")
    }

    @Test("the OpenAPI FaultKind enum is the kinds, and the FaultRule schema ties each to its one endpoint")
    func openAPI() throws {
        #expect(try Self.openAPIKinds() == Set(FaultKind.allCases.map(\.rawValue)))
        var expected: [String: Set<String>] = [:]
        for kind in FaultKind.allCases {
            if let only = kind.onlyEndpoint { expected[only.rawValue, default: []].insert(kind.rawValue) }
        }
        #expect(try Self.openAPIEndpointKinds() == expected)
    }

    @Test("an unknown or missing kind is 400 invalid_fault, and the message lists every kind")
    func unknownKindRefused() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let bodies = [
                #"{"endpoint": "config", "kind": "explode", "count": 1}"#, #"{"endpoint": "all", "count": 1}"#,
            ]
            for body in bodies {
                let response = try fetch(server.port, FaultAPI.post("/_mock/faults", body))
                #expect(response.status == 400)
                #expect(FaultAPI.errorCode(response) == "invalid_fault")
                let message = (try? JSONParser().parse(response.body))?["error"]?["message"]?.stringValue ?? ""
                #expect(message.hasPrefix("kind: "), "\(message)")
                for kind in FaultKind.allCases {
                    #expect(message.contains("\"\(kind.rawValue)\""), "\(body): the message does not list \(kind)")
                }
            }
            #expect(try FaultAPI.rules(server.port).isEmpty)
        }
    }

    @Test("a rule lists its kind by the name it was given, for every kind")
    func listedByName() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            for kind in FaultKind.allCases {
                let endpoint = kind.onlyEndpoint?.rawValue ?? "all"
                let parameters =
                    switch kind {
                    case .status: #", "status": 503"#
                    case .delay: #", "delayMs": 1"#
                    default: ""
                    }
                let rule = try FaultAPI.add(
                    server.port,
                    #"{"endpoint": "\#(endpoint)", "kind": "\#(kind.rawValue)", "count": 1\#(parameters)}"#)
                #expect(rule["kind"]?.stringValue == kind.rawValue)
            }
            let listed = try FaultAPI.rules(server.port).compactMap { $0["kind"]?.stringValue }
            #expect(listed == FaultKind.allCases.map(\.rawValue))
        }
    }
}
