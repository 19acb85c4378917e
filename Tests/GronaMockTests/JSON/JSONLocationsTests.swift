import GronaMockJSON
import Testing

/// `JSONParser.parseLocating`: where each value of a document starts, by path, so that a checker reporting a
/// problem by its JSON path can name the line too (scenario files, issue 30).
@Suite("JSON locations")
struct JSONLocationsTests {
    static let document = """
        {
          "name": "one",
          "steps": [
            {"command": "visit"},
            {
              "command": "vist",
              "screen": {"type": "hóme", "id": null}
            }
          ],
          "empty": {}
        }
        """

    @Test("every value's line and column, containers at their opening bracket")
    func lines() throws {
        let (value, locations) = try JSONParser().parseLocating(Array(Self.document.utf8))
        #expect(value == (try JSONParser().parse(Self.document)))
        func at(_ path: JSONPath) -> JSONLocations.Location? { locations.location(of: path) }
        let steps = JSONPath.root.appending("steps")
        #expect(at(.root) == .init(line: 1, column: 1))
        #expect(at(JSONPath.root.appending("name")) == .init(line: 2, column: 11))
        #expect(at(steps) == .init(line: 3, column: 12))
        #expect(at(steps.appending(0).appending("command")) == .init(line: 4, column: 17))
        #expect(at(steps.appending(1)) == .init(line: 5, column: 5))
        #expect(at(steps.appending(1).appending("command")) == .init(line: 6, column: 18))
        // Columns count Unicode scalars: "ó" is two bytes and one column.
        #expect(at(steps.appending(1).appending("screen").appending("id")) == .init(line: 7, column: 40))
        #expect(at(JSONPath.root.appending("empty")) == .init(line: 10, column: 12))
    }

    @Test("a path the document does not have is placed at its nearest enclosing value")
    func missing() throws {
        let (_, locations) = try JSONParser().parseLocating(Array(Self.document.utf8))
        let path = JSONPath.root.appending("steps").appending(1).appending("placements")
        #expect(locations.location(of: path) == .init(line: 5, column: 5))
        #expect(locations.location(of: JSONPath.root.appending("steps").appending(9)) == .init(line: 3, column: 12))
        #expect(JSONLocations().location(of: path) == nil)
    }

    @Test("a document that does not parse throws the parser's own error")
    func malformed() {
        #expect(throws: JSONParseError.self) { try JSONParser().parseLocating(Array("{\"a\": [1,]}".utf8)) }
    }
}
