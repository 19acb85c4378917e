import Foundation
import GronaMock
import GronaMockJSON
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

    // MARK: - Every vocabulary of contract §4 and §7, against the JSON Schemas, workspaces.md and OpenAPI

    /// A JSON Schema of docs/schemas, parsed: `$defs` of `name`.schema.json.
    static func definitions(_ name: String) throws -> JSONValue {
        let url = docs.appendingPathComponent("schemas/\(name).schema.json")
        let document = try JSONParser().parse(Array(try Data(contentsOf: url)))
        return try #require(document["$defs"], "\(name) has no $defs")
    }

    /// The strings of a JSON list; empty for anything else.
    static func names(_ value: JSONValue?) -> [String] {
        (value?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// The known names of a vocabulary, in its order.
    static func known<Name: Vocabulary>(_ vocabulary: Name.Type) -> [String] {
        Name.allCases.map(\.rawValue)
    }

    /// The `type` constants of the definitions a `oneOf` of `$ref`s names: `banner`, `progress`, … of `component`.
    static func constants(of definition: String, in defs: JSONValue) -> [String] {
        (defs[definition]?["oneOf"]?.arrayValue ?? []).compactMap { choice in
            let reference = choice["$ref"]?.stringValue ?? ""
            let target = reference.hasPrefix("#/$defs/") ? defs[String(reference.dropFirst(8))] : choice
            return target?["properties"]?["type"]?["const"]?.stringValue
        }
    }

    @Test("the events batch schema lists every vocabulary of an event, in the contract's order")
    func eventsBatchSchema() throws {
        let defs = try Self.definitions("events-batch")
        let action = defs["action"]?["properties"]
        #expect(Self.names(defs["common"]?["properties"]?["type"]?["enum"]) == Self.known(EventType.self))
        #expect(Self.names(defs["placement"]?["enum"]) == Self.known(Placement.self))
        #expect(Self.names(defs["placementEvent"]?["properties"]?["arm"]?["enum"]) == Self.known(Arm.self))
        #expect(Self.names(defs["screen"]?["properties"]?["type"]?["enum"]) == Self.known(ScreenType.self))
        #expect(Self.names(defs["treatmentType"]?["enum"]) == Self.known(TreatmentType.self))
        #expect(Self.names(action?["kind"]?["enum"]) == Self.known(ActionKind.self))
        #expect(Self.names(action?["result"]?["enum"]) == Self.known(ActionResult.self))
        #expect(Self.names(action?["route"]?["properties"]?["type"]?["enum"]) == Self.known(RouteType.self))
    }

    @Test("the configuration payload schema lists every vocabulary of a campaign, in the contract's order")
    func configPayloadSchema() throws {
        let defs = try Self.definitions("config-payload")
        let campaign = defs["campaign"]?["properties"]
        let condition = defs["condition"]?["properties"]
        #expect(Self.names(defs["placement"]?["enum"]) == Self.known(Placement.self))
        #expect(Self.names(campaign?["status"]?["enum"]) == Self.known(Campaign.Status.self))
        #expect(
            Self.names(defs["assignment"]?["properties"]?["unit"]?["enum"]) == Self.known(Campaign.AssignmentUnit.self))
        #expect(Self.names(defs["screenType"]?["enum"]) == Self.known(ScreenType.self))
        #expect(Self.names(condition?["field"]?["enum"]) == Self.known(TargetingField.self))
        #expect(Self.names(condition?["op"]?["enum"]) == Self.known(TargetingOperator.self))
        #expect(Self.constants(of: "component", in: defs) == Self.known(ComponentType.self))
        #expect(Self.names(defs["message"]?["properties"]?["tone"]?["enum"]) == Self.known(Tone.self))
        #expect(Self.names(defs["treatmentType"]?["enum"]) == Self.known(TreatmentType.self))
        #expect(Self.constants(of: "treatment", in: defs) == Self.known(TreatmentType.self))
        #expect(Self.constants(of: "action", in: defs) == Self.known(ActionType.self))
        // Two kinds of route: with an id and without; together, every route type.
        let routes = (defs["route"]?["oneOf"]?.arrayValue ?? []).flatMap {
            Self.names($0["properties"]?["type"]?["enum"])
        }
        #expect(Set(routes) == Set(Self.known(RouteType.self)) && routes.count == Self.known(RouteType.self).count)
        // The known decision types are the ones a newer SDK's type must not be.
        let newer = defs["newerDecision"]?["properties"]?["type"]?["not"]?["enum"]
        #expect(Self.names(newer) == Self.known(DecisionType.self))
    }

    @Test("docs/workspaces.md names every known name of a workspace's vocabularies")
    func workspacesMarkdown() throws {
        let text = try String(contentsOf: Self.docs.appendingPathComponent("workspaces.md"), encoding: .utf8)
        let names =
            Self.known(Placement.self) + Self.known(Campaign.Status.self) + Self.known(Campaign.AssignmentUnit.self)
            + Self.known(ScreenType.self) + Self.known(TargetingField.self) + Self.known(TargetingOperator.self)
            + Self.known(ComponentType.self) + Self.known(TreatmentType.self) + Self.known(Tone.self)
            + Self.known(ActionType.self) + Self.known(RouteType.self) + Self.known(DecisionType.self)
        for name in names {
            #expect(text.contains("`\(name)`") || text.contains("\"\(name)\""), "docs/workspaces.md lacks \(name)")
        }
    }

    /// The `examples: [...]` of the OpenAPI document's query parameter `name` (components.parameters).
    static func parameterExamples(_ name: String) throws -> [String] {
        let text = try String(contentsOf: docs.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        guard let parameter = text.range(of: "\n    \(name):\n      name: \(name)\n"),
            let open = text.range(of: "examples: [", range: parameter.upperBound..<text.endIndex),
            let close = text.range(of: "]", range: open.upperBound..<text.endIndex)
        else { return [] }
        return text[open.upperBound..<close.lowerBound].split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test("the OpenAPI document's event filters offer every event type, arm and placement")
    func openAPIFilters() throws {
        #expect(try Self.parameterExamples("type") == Self.known(EventType.self))
        #expect(try Self.parameterExamples("arm") == Self.known(Arm.self))
        #expect(try Self.parameterExamples("placement") == Self.known(Placement.self))
    }
}
