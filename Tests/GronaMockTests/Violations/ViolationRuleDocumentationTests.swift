import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

/// The violation rules are one enum, `ViolationRule`: the checker reports its cases and the JSON output
/// names them by their wire names, which docs/violations.md and docs/openapi.yaml must describe, no more and
/// no fewer.
@Suite("Violation rules: one enum, documented")
struct ViolationRuleDocumentationTests {
    static let docs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs")

    static let declared = Set(ViolationRule.allCases.map(\.rawValue))

    /// The `### \`rule\`` headings of docs/violations.md's "The rules" section, in order.
    static func documentedInMarkdown() throws -> [String] {
        let text = try String(contentsOf: docs.appendingPathComponent("violations.md"), encoding: .utf8)
        guard let section = text.range(of: "\n## The rules\n") else { return [] }
        var rules: [String] = []
        for line in text[section.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("### `") else { continue }
            rules.append(String(line.dropFirst("### `".count).prefix { $0 != "`" }))
        }
        return rules
    }

    /// The `rule` enum of the violations answer in docs/openapi.yaml (a flow sequence over several lines).
    static func documentedInOpenAPI() throws -> Set<String> {
        let text = try String(contentsOf: docs.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        guard let path = text.range(of: "\n  /_mock/events/violations:\n"),
            let rule = text.range(of: "rule:", range: path.upperBound..<text.endIndex),
            let open = text.range(of: "enum: [", range: rule.upperBound..<text.endIndex),
            let close = text[open.upperBound...].firstIndex(of: "]")
        else { return [] }
        let list = text[open.upperBound..<close].split(separator: ",")
        return Set(list.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    }

    @Test("docs/violations.md has a section for every rule, once each, and for no other")
    func violationsMarkdown() throws {
        let documented = try Self.documentedInMarkdown()
        #expect(Self.declared.subtracting(documented).sorted() == [], "rules missing from docs/violations.md")
        #expect(Set(documented).subtracting(Self.declared).sorted() == [], "docs/violations.md lists other rules")
        #expect(documented.count == Set(documented).count, "a rule has two sections")
    }

    @Test("the OpenAPI violations answer lists every rule in its rule enum, and no other")
    func openAPI() throws {
        let documented = try Self.documentedInOpenAPI()
        #expect(Self.declared.subtracting(documented).sorted() == [], "rules missing from docs/openapi.yaml")
        #expect(documented.subtracting(Self.declared).sorted() == [], "docs/openapi.yaml lists other rules")
    }

    @Test("the rule filter's pattern in docs/openapi.yaml names every rule, and no other")
    func openAPIFilterPattern() throws {
        let text = try String(contentsOf: Self.docs.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let path = try #require(text.range(of: "\n  /_mock/events/violations:\n"))
        let start = try #require(text.range(of: "pattern: '^(", range: path.upperBound..<text.endIndex))
        let end = try #require(text[start.upperBound...].firstIndex(of: ")"))
        let named = Set(text[start.upperBound..<end].split(separator: "|").map(String.init))
        #expect(named == Self.declared)
    }

    @Test("a violation is output under its rule's wire name, which reads back as the rule")
    func wireNames() {
        for rule in ViolationRule.allCases {
            let violation = Violation(rule: rule, events: [1], eventIDs: ["e-1"], message: "m")
            #expect(violation.json["rule"]?.stringValue == rule.rawValue)
            #expect(ViolationRule(rawValue: rule.rawValue) == rule)
        }
        #expect(Self.declared.count == ViolationRule.allCases.count, "two rules share a wire name")
    }
}
