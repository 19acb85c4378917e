import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// The error `JSONParser` reports for `input`, or nil when it parses.
func jsonParseError(_ input: [UInt8], maximumDepth: Int = JSONParser.defaultMaximumDepth) -> JSONParseError? {
    do {
        _ = try JSONParser(maximumDepth: maximumDepth).parse(input)
        return nil
    } catch {
        return error
    }
}

func jsonParseError(_ input: String) -> JSONParseError? {
    jsonParseError(Array(input.utf8))
}

/// Two uppercase hex digits, as the parser's messages write a byte.
private func hexByte(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return byte < 0x10 ? "0" + digits : digits
}

@Suite("JSON parser: valid documents")
struct JSONParserValidTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let input: String
        let expected: JSONValue
        var testDescription: String { input }
    }

    static let cases: [Case] = [
        Case(input: "null", expected: .null),
        Case(input: "true", expected: true),
        Case(input: "false", expected: false),
        Case(input: "0", expected: 0),
        Case(input: "-12", expected: -12),
        Case(input: "1.5e-3", expected: .number(JSONNumber(text: "1.5e-3") ?? 0)),
        Case(input: "\"\"", expected: ""),
        Case(input: "[]", expected: []),
        Case(input: "{}", expected: [:]),
        Case(input: " \t\r\n[ 1 ,\t2 ]\r\n ", expected: [1, 2]),
        Case(input: "[[[]]]", expected: [[[]]]),
        Case(input: #""\"\\\/\b\f\n\r\t""#, expected: "\"\\/\u{8}\u{C}\n\r\t"),
        Case(input: #""\u0041\u00e9\u20AC\u00E9""#, expected: "Aé€é"),
        Case(input: #""\uD83D\uDE00 and \ud83d\ude00""#, expected: "😀 and 😀"),
        Case(input: #""\u0000""#, expected: "\u{0}"),
        Case(input: #""a\u0000b\n""#, expected: "a\u{0}b\n"),
        Case(input: "\"plain é 😀 ユーザー\"", expected: "plain é 😀 ユーザー"),
        Case(input: "\"\u{7F}\u{2028}\"", expected: "\u{7F}\u{2028}"),
        Case(
            input: #"{"b":1,"a":{"c":[1,{"d":null}],"e":"f"}}"#,
            expected: ["b": 1, "a": ["c": [1, ["d": .null]], "e": "f"]]),
        // RFC 8259 §8.3 compares keys by code units: these two spellings of "é" are different keys.
        Case(input: "{\"\u{E9}\":1,\"e\u{301}\":2}", expected: ["\u{E9}": 1, "e\u{301}": 2]),
        Case(input: #"{"a":1,"A":2}"#, expected: ["a": 1, "A": 2]),
    ]

    @Test("parses", arguments: cases)
    func parses(_ testCase: Case) throws {
        #expect(try JSONParser().parse(testCase.input) == testCase.expected)
    }

    @Test("byte arrays, slices, raw buffers and strings parse the same")
    func inputForms() throws {
        let bytes = Array(#"xx{"a":[1,"é"]}yy"#.utf8)
        let slice = bytes[2..<bytes.count - 2]
        let expected: JSONValue = ["a": [1, "é"]]
        let parser = JSONParser()
        #expect(try parser.parse(Array(slice)) == expected)
        #expect(try parser.parse(slice) == expected)
        #expect(try parser.parse(#"{"a":[1,"é"]}"#) == expected)
        var fromRaw: JSONValue?
        try Array(slice).withUnsafeBytes { fromRaw = try parser.parse($0) }
        #expect(fromRaw == expected)
    }

    @Test("an error in a slice is positioned from the slice's start")
    func sliceOffsets() {
        let bytes = Array("[[1,]]".utf8)
        let parser = JSONParser()
        #expect(
            throws: JSONParseError(reason: "a trailing comma before ']' is not allowed", offset: 3, line: 1, column: 4)
        ) {
            try parser.parse(bytes[1...])
        }
    }

    @Test("an object with many keys keeps document order and finds each key")
    func manyKeys() throws {
        let members = (0..<1000).map { "\"k\(999 - $0)\":\($0)" }
        let value = try JSONParser().parse("{" + members.joined(separator: ",") + "}")
        let object = try #require(value.objectValue)
        #expect(object.count == 1000)
        #expect(object.keys.first == "k999")
        #expect(object.keys.last == "k0")
        #expect(object["k500"] == 499)
    }
}

@Suite("JSON parser: invalid documents")
struct JSONParserInvalidTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let input: String
        let reason: String
        let line: Int
        let column: Int
        var testDescription: String { input.debugDescription }
    }

    static let cases: [Case] = [
        Case(input: "", reason: "expected a value, found the end of the input", line: 1, column: 1),
        Case(input: "  \n ", reason: "expected a value, found the end of the input", line: 2, column: 2),
        Case(input: "[", reason: "expected a value, found the end of the input", line: 1, column: 2),
        Case(input: #"{"a":"#, reason: "expected a value, found the end of the input", line: 1, column: 6),
        Case(input: "]", reason: "expected a value, found ']'", line: 1, column: 1),
        Case(input: "[1,,2]", reason: "expected a value, found ','", line: 1, column: 4),
        Case(input: "[1,2,]", reason: "a trailing comma before ']' is not allowed", line: 1, column: 6),
        Case(input: "[1,2, ]", reason: "a trailing comma before ']' is not allowed", line: 1, column: 7),
        Case(input: #"{"a":1,}"#, reason: "a trailing comma before '}' is not allowed", line: 1, column: 8),
        Case(input: "[1 2]", reason: "expected ',' or ']' after an array element, found '2'", line: 1, column: 4),
        Case(
            input: "[1", reason: "expected ',' or ']' after an array element, found the end of the input", line: 1,
            column: 3),
        Case(
            input: #"{"a":1 "b":2}"#, reason: #"expected ',' or '}' after an object member, found '"'"#, line: 1,
            column: 8),
        Case(
            input: "{\n  \"a\": 1,\n  \"b\": \"two\" \"c\": 3\n}",
            reason: #"expected ',' or '}' after an object member, found '"'"#, line: 3, column: 14),
        Case(
            input: "{", reason: "expected a string key or '}' after '{', found the end of the input", line: 1,
            column: 2),
        Case(input: "{1:1}", reason: "expected a string key or '}' after '{', found '1'", line: 1, column: 2),
        Case(input: #"{"a":1,2}"#, reason: "expected a string key after ',', found '2'", line: 1, column: 8),
        Case(input: #"{"a" 1}"#, reason: "expected ':' after an object key, found '1'", line: 1, column: 6),
        Case(input: "{a:1}", reason: "object keys must be strings in double quotes", line: 1, column: 2),
        Case(input: "['a']", reason: "strings must be in double quotes", line: 1, column: 2),
        Case(input: "[1, /* two */ 2]", reason: "comments are not allowed in JSON", line: 1, column: 5),
        Case(input: "[1] // done", reason: "comments are not allowed in JSON", line: 1, column: 5),
        Case(input: #"{"a":1 // one"#, reason: "comments are not allowed in JSON", line: 1, column: 8),
        Case(input: "[01]", reason: "leading zeros are not allowed in a number", line: 1, column: 2),
        Case(input: "-00", reason: "leading zeros are not allowed in a number", line: 1, column: 1),
        Case(input: "-", reason: "expected a digit after '-', found the end of the input", line: 1, column: 2),
        Case(input: "-Infinity", reason: "expected a digit after '-', found 'I'", line: 1, column: 2),
        Case(input: "[1.]", reason: "expected a digit after the decimal point, found ']'", line: 1, column: 4),
        Case(input: "1.e5", reason: "expected a digit after the decimal point, found 'e'", line: 1, column: 3),
        Case(input: "1e", reason: "expected a digit in the exponent, found the end of the input", line: 1, column: 3),
        Case(input: "1e+", reason: "expected a digit in the exponent, found the end of the input", line: 1, column: 4),
        Case(input: "+1", reason: "a number cannot start with '+'", line: 1, column: 1),
        Case(input: "[.5]", reason: "a number must start with a digit, as in 0.5", line: 1, column: 2),
        Case(input: "0x10", reason: "unexpected 'x' after the JSON value", line: 1, column: 2),
        Case(input: "NaN", reason: "NaN is not a JSON number", line: 1, column: 1),
        Case(input: "[Infinity]", reason: "Infinity is not a JSON number", line: 1, column: 2),
        Case(
            input: "nul",
            reason: "a bare word where a value belongs (a string needs quotes; literals are true, false, null)",
            line: 1, column: 1),
        Case(
            input: "True",
            reason: "a bare word where a value belongs (a string needs quotes; literals are true, false, null)",
            line: 1, column: 1),
        Case(
            input: "truex",
            reason: "a bare word where a value belongs (a string needs quotes; literals are true, false, null)",
            line: 1, column: 1),
        Case(
            input: "[\"é\", x]",
            reason: "a bare word where a value belongs (a string needs quotes; literals are true, false, null)",
            line: 1, column: 7),
        Case(input: "1 2", reason: "unexpected '2' after the JSON value", line: 1, column: 3),
        Case(input: "{} {}", reason: "unexpected '{' after the JSON value", line: 1, column: 4),
        Case(input: #"{"a":1}}"#, reason: "unexpected '}' after the JSON value", line: 1, column: 8),
        Case(input: "[1]\r\n]", reason: "unexpected ']' after the JSON value", line: 2, column: 1),
        Case(input: "\u{FEFF}{}", reason: "a byte order mark is not allowed before JSON text", line: 1, column: 1),
        Case(input: "\u{C}1", reason: "expected a value, found byte 0x0C", line: 1, column: 1),
        Case(input: "[1,\u{A0}2]", reason: "expected a value, found '\u{A0}' (U+00A0)", line: 1, column: 4),
        Case(input: "“a”", reason: "expected a value, found '“' (U+201C)", line: 1, column: 1),
        Case(
            input: #""abc"#, reason: #"unterminated string: no closing '"' before the end of the input"#, line: 1,
            column: 1),
        Case(
            input: #"["a\"]"#, reason: #"unterminated string: no closing '"' before the end of the input"#,
            line: 1, column: 2),
        Case(
            input: "\"a\tb\"", reason: "control character 0x09 in a string must be escaped", line: 1, column: 3),
        Case(
            input: "[\"line\nbreak\"]", reason: "control character 0x0A in a string must be escaped", line: 1,
            column: 7),
        Case(input: #""a\x""#, reason: #"invalid escape '\x' in a string"#, line: 1, column: 3),
        Case(input: #""\'""#, reason: #"invalid escape '\'' in a string"#, line: 1, column: 2),
        Case(input: #""\u12G4""#, reason: #"invalid \u escape: expected four hexadecimal digits"#, line: 1, column: 2),
        Case(input: #""\u12""#, reason: #"invalid \u escape: expected four hexadecimal digits"#, line: 1, column: 2),
        Case(
            input: #""\uD83D""#,
            reason: #"lone surrogate \uD83D: a high surrogate must be followed by a \u escaped low surrogate"#,
            line: 1, column: 2),
        Case(
            input: #""x\uD83D\u0041""#,
            reason: #"lone surrogate \uD83D: a high surrogate must be followed by a \u escaped low surrogate"#,
            line: 1, column: 3),
        Case(
            input: #""\uD83D\uD83D""#,
            reason: #"lone surrogate \uD83D: a high surrogate must be followed by a \u escaped low surrogate"#,
            line: 1, column: 2),
        Case(
            input: #""\ude00""#, reason: #"lone surrogate \ude00: a low surrogate must follow a high surrogate"#,
            line: 1, column: 2),
        Case(input: #"{"a":1,"a":2}"#, reason: #"duplicate key "a" in an object"#, line: 1, column: 8),
        Case(
            input: "{\"x\":{\"a\":1},\n\"y\":{\"a\":1,\"b\":2,\"a\":3}}", reason: #"duplicate key "a" in an object"#,
            line: 2, column: 18),
        Case(input: #"{"\u0061":1,"a":2}"#, reason: #"duplicate key "a" in an object"#, line: 1, column: 13),
    ]

    @Test("is rejected with its reason and position", arguments: cases)
    func rejected(_ testCase: Case) throws {
        let error = try #require(jsonParseError(testCase.input))
        #expect(error.reason == testCase.reason)
        #expect(error.line == testCase.line)
        #expect(error.column == testCase.column)
    }

    @Test("the description names the reason, line and column")
    func description() throws {
        let error = try #require(jsonParseError("{\n  \"a\": 1,\n  \"b\": \"two\" \"c\": 3\n}"))
        #expect(
            error.description == #"expected ',' or '}' after an object member, found '"' at line 3, column 14"#)
        #expect(error.offset == 25)
    }

    @Test("every byte 0x00-0x1F inside a string is rejected, before or after an escape", arguments: 0x00...0x1F)
    func controlCharacters(_ byte: Int) throws {
        let code = UInt8(byte)
        let hex = hexByte(code)
        let expected = JSONParseError(
            reason: "control character 0x\(hex) in a string must be escaped", offset: 2, line: 1, column: 3)
        #expect(jsonParseError([0x22, 0x61, code, 0x22]) == expected)
        let afterEscape = try #require(jsonParseError(Array(#"["\n"#.utf8) + [code, 0x22, 0x5D]))
        #expect(afterEscape.reason == "control character 0x\(hex) in a string must be escaped")
        #expect(afterEscape.offset == 4)
    }

    struct UTF8Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        /// Offset of the first byte of the bad sequence within `bytes`.
        let badOffset: Int
        var testDescription: String { name }
    }

    static let invalidUTF8Cases: [UTF8Case] = [
        UTF8Case(name: "lone continuation byte", bytes: [0x80], badOffset: 0),
        UTF8Case(name: "0xFF", bytes: [0x61, 0xFF], badOffset: 1),
        UTF8Case(name: "0xF5 lead", bytes: [0xF5, 0x80, 0x80, 0x80], badOffset: 0),
        UTF8Case(name: "overlong 2-byte C0 AF", bytes: [0xC0, 0xAF], badOffset: 0),
        UTF8Case(name: "overlong 2-byte C1 BF", bytes: [0xC1, 0xBF], badOffset: 0),
        UTF8Case(name: "overlong 3-byte", bytes: [0xE0, 0x80, 0xAF], badOffset: 0),
        UTF8Case(name: "overlong 4-byte", bytes: [0xF0, 0x80, 0x80, 0xAF], badOffset: 0),
        UTF8Case(name: "encoded surrogate U+D800", bytes: [0xED, 0xA0, 0x80], badOffset: 0),
        UTF8Case(name: "beyond U+10FFFF", bytes: [0xF4, 0x90, 0x80, 0x80], badOffset: 0),
        UTF8Case(name: "truncated 2-byte", bytes: [0x61, 0xC3], badOffset: 1),
        UTF8Case(name: "truncated 3-byte", bytes: [0xE2, 0x82], badOffset: 0),
        UTF8Case(name: "truncated 4-byte", bytes: [0xF0, 0x9F, 0x98], badOffset: 0),
        UTF8Case(name: "continuation replaced by ASCII", bytes: [0xC3, 0x41], badOffset: 0),
    ]

    @Test("invalid UTF-8 in a string is rejected at its first byte", arguments: invalidUTF8Cases)
    func invalidUTF8(_ testCase: UTF8Case) throws {
        let plain = try #require(jsonParseError([0x22] + testCase.bytes + [0x22]))
        #expect(plain.reason == "invalid UTF-8 at byte 0x\(hexByte(testCase.bytes[testCase.badOffset])) in a string")
        #expect(plain.offset == 1 + testCase.badOffset)
        let afterEscape = try #require(jsonParseError(Array(#""\t"#.utf8) + testCase.bytes + [0x22]))
        #expect(afterEscape.offset == 3 + testCase.badOffset)
    }

    @Test("invalid UTF-8 outside a string is an unexpected byte")
    func invalidUTF8OutsideStrings() {
        #expect(jsonParseError([0x5B, 0xFF, 0x5D])?.reason == "expected a value, found byte 0xFF")
        #expect(jsonParseError([0x31, 0xC3])?.reason == "unexpected byte 0xC3 after the JSON value")
    }

    @Test("the boundaries of each UTF-8 length decode to their scalars")
    func validUTF8Boundaries() throws {
        let scalars: [UInt32] = [0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF]
        for value in scalars {
            let scalar = try #require(Unicode.Scalar(value))
            let text = String(scalar)
            #expect(try JSONParser().parse([0x22] + Array(text.utf8) + [0x22]) == .string(text))
            let escaped = JSONValue.string(text).serialized()
            #expect(escaped == [0x22] + Array(text.utf8) + [0x22])
        }
    }

    @Test("a duplicate key is found past the linear-scan size, by bytes and not by canonical equivalence")
    func duplicatesInLargeObjects() throws {
        let filler = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let distinct = "{" + filler + ",\"\u{E9}\":1,\"e\u{301}\":2}"
        #expect(try JSONParser().parse(distinct).objectValue?.count == 42)
        let duplicated = "{" + filler + ",\"k3\":0}"
        let error = try #require(jsonParseError(duplicated))
        #expect(error.reason == #"duplicate key "k3" in an object"#)
        #expect(error.offset == filler.utf8.count + 2)
    }

    @Test("a long duplicate key is shortened in the message")
    func longDuplicateKey() throws {
        let key = String(repeating: "x", count: 100)
        let error = try #require(jsonParseError("{\"\(key)\":1,\"\(key)\":2}"))
        #expect(error.reason == "duplicate key \"\(String(repeating: "x", count: 40))…\" in an object")
    }
}

@Suite("JSON parser: nesting depth")
struct JSONParserDepthTests {
    @Test("64 nested arrays or objects parse by default; the 65th is rejected at its bracket")
    func defaultLimit() throws {
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser().parse(deepest) }
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(
            jsonParseError(tooDeep)
                == JSONParseError(
                    reason: "arrays and objects nested deeper than 64 levels", offset: 64, line: 1, column: 65))
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(jsonParseError(objects)?.offset == 64 * 5)
        let emptyInnermost = String(repeating: "[", count: 64) + "{}" + String(repeating: "]", count: 64)
        #expect(jsonParseError(emptyInnermost)?.offset == 64)
    }

    @Test("a configured limit applies; depth 0 allows only scalars")
    func configuredLimit() {
        #expect(jsonParseError(Array("[[1]]".utf8), maximumDepth: 2) == nil)
        #expect(
            jsonParseError(Array("[[[1]]]".utf8), maximumDepth: 2)?.reason
                == "arrays and objects nested deeper than 2 levels")
        #expect(jsonParseError(Array("1".utf8), maximumDepth: 0) == nil)
        #expect(jsonParseError(Array("[]".utf8), maximumDepth: 0)?.offset == 0)
    }

    @Test("hostile nesting fails cleanly, even under a huge configured limit")
    func hostileNesting() throws {
        let brackets = [UInt8](repeating: UInt8(ascii: "["), count: 200_000)
        #expect(jsonParseError(brackets)?.offset == 64)
        // The parser keeps its own stack, so even far past what recursion could survive it fails at the end.
        #expect(
            jsonParseError(brackets, maximumDepth: .max)
                == JSONParseError(
                    reason: "expected a value, found the end of the input", offset: 200_000, line: 1, column: 200_001))
        let thousand = String(repeating: "[", count: 1000) + "1" + String(repeating: "]", count: 1000)
        var value = try JSONParser(maximumDepth: 1000).parse(thousand)
        var depth = 0
        while case .array(let elements) = value, let first = elements.first {
            depth += 1
            value = first
        }
        #expect(depth == 1000)
        #expect(value == 1)
    }
}
