import Testing

@testable import GronaMock

/// `JSONMembers`: the top-level members the violation check and the export skim instead of parsing.
@Suite("Skimming a stored event's JSON (JSONMembers)")
struct JSONMembersTests {
    static let keys: [StaticString] = ["screen", "key", "preview"]

    /// Each member's text as found, nil where absent.
    static func found(_ text: String) -> [String?]? {
        let bytes = Array(text.utf8)[...]
        return JSONMembers.ranges(in: bytes, keys: keys)?.map { range in
            range.map { String(decoding: bytes[$0], as: UTF8.self) }
        }
    }

    @Test(
        "top-level members are found whatever precedes and nests them",
        arguments: [
            ("{}", [nil, nil, nil]),
            ("{\"screen\":{\"type\":\"home\"},\"key\":null}", ["{\"type\":\"home\"}", "null", nil]),
            // A nested "key" is not the top-level one; strings hold braces, quotes and commas.
            (
                "{\"a\":{\"key\":\"x\"},\"b\":\"},\\\"key\\\":1,\",\"key\":\"k\",\"preview\":true}",
                [nil, "\"k\"", "true"]
            ),
            ("{ \"preview\" : \"pv_1\" , \"screen\" : [1, {\"x\": [2]}] }", ["[1, {\"x\": [2]}]", nil, "\"pv_1\""]),
            ("{\"key\":-12.5e3,\"screen\":false}", ["false", "-12.5e3", nil]),
            // A string's end is found by its quote: one that ends in an escaped backslash, escapes elsewhere in
            // it, an empty one.
            (#"{"a":"x\\","key":"k"}"#, [nil, #""k""#, nil]),
            (#"{"a":"","key":"\n\"q\"","screen":"\\\""}"#, [#""\\\"""#, #""\n\"q\"""#, nil]),
        ] as [(String, [String?])])
    func found(text: String, expected: [String?]) {
        #expect(Self.found(text) == expected)
    }

    @Test(
        "what cannot be skimmed answers nil, so the caller parses it whole",
        arguments: [
            "", "[]", "{\"scr\\u0065en\":{}}", "{\"key\":", "{\"key\"}", "{\"a\":1", #"{"a":"open"#,
            #"{"a":"ends in an escape\"#,
        ])
    func unskimmable(text: String) {
        #expect(Self.found(text) == nil)
    }

    @Test(
        "mayHold answers false only when no member can be one of the keys",
        arguments: [
            (#"{"type":"exposure","page":{"type":"home"}}"#, false),
            (#"{"type":"exposure","screen":{"type":"home"}}"#, true),
            (#"{"key":"a"}"#, true),
            // Anywhere quoted, even as a value or deep inside: the answer may be a false alarm, never a miss.
            (#"{"type":"key"}"#, true),
            (#"{"a":{"preview":1}}"#, true),
            // An escape could spell a key.
            (#"{"key":1}"#, true),
            (#"{"keys":1,"pre":2,"k":"ey"}"#, false),
            (#"{"key"#, false),
            ("", false),
        ])
    func mayHold(_ text: String, _ expected: Bool) {
        #expect(JSONMembers.mayHold(Self.keys, in: Array(text.utf8)[...]) == expected)
    }

    @Test("a string value is read in place, or parsed when it holds an escape")
    func strings() {
        let bytes = Array("{\"key\":\"a\\\"b\",\"screen\":\"plain\"}".utf8)[...]
        let ranges = JSONMembers.ranges(in: bytes, keys: Self.keys)
        #expect(JSONMembers.string(bytes, ranges?[1] ?? nil) == "a\"b")
        #expect(JSONMembers.string(bytes, ranges?[0] ?? nil) == "plain")
        #expect(JSONMembers.string(bytes, nil) == nil)
    }

    @Test("a buffer reused across events holds only the last event's members")
    func reusedBuffer() {
        var found: [Range<Int>?] = []
        let first = Array(#"{"screen":{},"key":"a","preview":1}"#.utf8)[...]
        #expect(JSONMembers.ranges(in: first, keys: Self.keys, into: &found))
        #expect(found.compactMap { $0 }.count == 3)
        let second = Array(#"{"key":"b"}"#.utf8)[...]
        #expect(JSONMembers.ranges(in: second, keys: Self.keys, into: &found))
        #expect(found.map { $0.map { String(decoding: second[$0], as: UTF8.self) } } == [nil, #""b""#, nil])
        #expect(!JSONMembers.ranges(in: Array("[]".utf8)[...], keys: ["type"], into: &found))
    }
}
