import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

/// Each vocabulary is declared once, as a type, and the documents follow it: adding an error code without
/// documenting it, or documenting one the server never sends, fails here.
@Suite("Vocabularies and their documentation agree")
struct VocabularyDocumentationTests {
    static let docs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs")

    /// The codes in docs/errors.md's tables: a row's second cell, in back-quotes.
    static func documentedInErrorsMarkdown() throws -> Set<String> {
        let text = try String(contentsOf: docs.appendingPathComponent("errors.md"), encoding: .utf8)
        var codes: Set<String> = []
        for line in text.split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { continue }
            codes.insert(String(cells[1].dropFirst().dropLast()))
        }
        return codes
    }

    /// The `ErrorCode` enum of docs/openapi.yaml.
    static func documentedInOpenAPI() throws -> Set<String> {
        let text = try String(contentsOf: docs.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "    ErrorCode:" }) else { return [] }
        var codes: Set<String> = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("    ") && !line.hasPrefix("     ") { break }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("- ") { codes.insert(String(trimmed.dropFirst(2))) }
        }
        return codes
    }

    @Test("every declared error code is in docs/errors.md and the OpenAPI ErrorCode enum, and nothing else is")
    func errorCodes() throws {
        let declared = Set(ErrorCode.allCodes.map(\.rawValue))
        #expect(declared.count == ErrorCode.allCodes.count, "a code is declared twice")
        let markdown = try Self.documentedInErrorsMarkdown()
        let openAPI = try Self.documentedInOpenAPI()
        #expect(declared.subtracting(markdown).sorted() == [], "codes missing from docs/errors.md")
        #expect(markdown.subtracting(declared).sorted() == [], "docs/errors.md lists codes never sent")
        #expect(declared.subtracting(openAPI).sorted() == [], "codes missing from the OpenAPI ErrorCode enum")
        #expect(openAPI.subtracting(declared).sorted() == [], "the OpenAPI ErrorCode enum lists codes never sent")
    }

    /// The values of the first `"enum": [...]` at or after `anchor` in the events batch schema.
    static func schemaEnum(after anchor: String) throws -> Set<String> {
        let url = docs.appendingPathComponent("schemas/events-batch.schema.json")
        let text = try String(contentsOf: url, encoding: .utf8)
        guard let keyRange = text.range(of: anchor),
            let open = text.range(of: "\"enum\": [", range: keyRange.lowerBound..<text.endIndex),
            let close = text.range(of: "]", range: open.upperBound..<text.endIndex)
        else { return [] }
        let list = text[open.upperBound..<close.lowerBound]
        let quotesAndSpace = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\""))
        return Set(list.split(separator: ",").map { $0.trimmingCharacters(in: quotesAndSpace) })
    }

    @Test("event types, placements and arms are the JSON Schema's enums, no more and no fewer")
    func eventVocabulary() throws {
        #expect(try Self.schemaEnum(after: "\"type\": { \"enum\"") == Set(EventType.allCases.map(\.rawValue)))
        #expect(try Self.schemaEnum(after: "\"placement\": {") == Set(Placement.allCases.map(\.rawValue)))
        #expect(try Self.schemaEnum(after: "\"arm\": {") == Set(Arm.allCases.map(\.rawValue)))
    }
}
