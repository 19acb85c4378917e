import GronaMockJSON
import Testing

/// `JSONWriter.writeCompacting` and `JSONParser.parse(_:keepingTextOf:)`: an events batch's events are stored
/// from their own text, so that text compacted must be, byte for byte, what writing the parsed event gives.
/// Random inputs are checked the same way in JSONRobustnessTests.
@Suite("JSON compacting and kept element text")
struct JSONCompactingTests {
    static let texts: [String] = [
        "{\n  \"a\" : [ 1 ,\t2 ],\r\n  \"b\" : { }\n}",
        #"  "spaces inside a string stay"  "#,
        #"["\u0041\/\u00e9", "\ud83d\ude00", "\b\f\n\r\t", "\u001f\u0000", "a\"b\\c"]"#,
        #"{"k\u0065y": "v", "esc\\": [ "x" ]}"#,
        "[ -0 , 1.5e10 , 1E+2 , 0.0 , -12345678901234567890 , 9223372036854775807 ]",
        "[ [ ] , { } , [ [ { \"\" : \"\" } ] ] , true , false , null ]",
        #""\u2028 and \u2029""#,
        "{\"events\": [ {\"eventID\": \"e-1\", \"label\": \"Fr\\u00fchling \\\"quoted\\\"\"} ]}",
    ]

    @Test("accepted text compacts to exactly what serializing its value writes", arguments: texts)
    func compactingIsSerializing(_ text: String) throws {
        let bytes = Array(text.utf8)
        let value = try JSONParser().parse(bytes)
        #expect(JSONWriter.compacted(bytes, range: 0..<bytes.count) == value.serialized())
    }

    @Test("a range past the text is clamped, and an empty one gives nothing")
    func outOfRange() {
        let bytes = Array("[1, 2]".utf8)
        #expect(JSONWriter.compacted(bytes, range: 0..<100) == Array("[1,2]".utf8))
        #expect(JSONWriter.compacted(bytes, range: 3..<3) == [])
    }

    /// The `events` of the root object only: with its whitespace around each element left out.
    @Test("the root member's array elements are kept by range, in order")
    func keptElements() throws {
        let text = """
            {"events" :[ {"a": [1, {"b": 2}]} ,\t"two", 3 ,[4, [5]] ,null ],
             "other": [9, 8], "nested": {"events": [7]}}
            """
        let bytes = Array(text.utf8)
        let (value, ranges) = try JSONParser().parse(bytes, keepingTextOf: "events")
        #expect(value == (try JSONParser().parse(bytes)))
        let kept = ranges.map { String(decoding: bytes[$0], as: UTF8.self) }
        #expect(kept == [#"{"a": [1, {"b": 2}]}"#, #""two""#, "3", "[4, [5]]", "null"])
    }

    @Test(
        "no ranges when the member is missing, not an array, empty, or the root is not an object",
        arguments: [
            #"{"other": [1, 2]}"#, #"{"events": {"a": [1]}}"#, #"{"events": []}"#, #"[{"events": [1]}]"#,
            #"{"nested": {"events": [1, 2]}, "list": [3]}"#, #""events""#,
        ])
    func noRanges(_ text: String) throws {
        let (_, ranges) = try JSONParser().parse(Array(text.utf8), keepingTextOf: "events")
        #expect(ranges.isEmpty)
    }

    /// A member named with an escape is the same member: keys are compared once decoded.
    @Test("a member name spelled with an escape is still the member")
    func escapedMemberName() throws {
        let bytes = Array(#"{"ev\u0065nts": [ 1, "x" ]}"#.utf8)
        let (_, ranges) = try JSONParser().parse(bytes, keepingTextOf: "events")
        #expect(ranges.map { String(decoding: bytes[$0], as: UTF8.self) } == ["1", #""x""#])
    }

    @Test("a document the parser refuses throws as it does without kept text")
    func refused() {
        #expect(throws: JSONParseError.self) {
            _ = try JSONParser().parse(Array(#"{"events": [1, 2,]}"#.utf8), keepingTextOf: "events")
        }
    }
}
