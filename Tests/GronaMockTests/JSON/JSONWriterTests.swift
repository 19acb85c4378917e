import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@testable import GronaMock

@Suite("JSON writer")
struct JSONWriterTests {
    /// Documents already in the writer's compact form: parsing and serializing gives back the same bytes.
    static let canonical: [String] = [
        "null", "true", "false", "0", "-0", "\"\"", "[]", "{}",
        #"[-0,1e400,1.5E-7,12345678901234567890,-9223372036854775808,0.1]"#,
        #"{"b":1,"a":[true,false,null],"c":{"d":"e\n\u001f\"\\/"}}"#,
        #"["\b\f\n\r\t","\u0000\u0001\u001e","é😀 ユーザー"]"#,
        "[\"\u{7F}\u{2028}\u{2029}\u{FEFF}\"]",
        #"{"workspaceKey":"acme-market","events":[{"eventID":"0f8e","timestamp":1764478799001,"customerID":null}]}"#,
        #"{"":{"":[]}}"#,
    ]

    @Test("compact input serializes back byte for byte", arguments: canonical)
    func byteForByte(_ text: String) throws {
        let value = try JSONParser().parse(text)
        #expect(String(decoding: value.serialized(), as: UTF8.self) == text)
    }

    @Test(
        "parse, serialize, parse gives an equal value",
        arguments: canonical + [
            " [ 1 , { \"a\" : \"\\u0041\\/\" } ] ", "\"\\uD83D\\uDE00\"", "{\"x\":[[],[{}],\"\\\"\"]}",
        ])
    func roundTrip(_ text: String) throws {
        let value = try JSONParser().parse(text)
        #expect(try JSONParser().parse(value.serialized()) == value)
        #expect(try JSONParser().parse(value.prettySerialized()) == value)
    }

    @Test(
        "an integer is written in its shortest decimal form, at both ends of Int64",
        arguments: [Int64.min, -1_000_000_000_000_000, -10, -1, 0, 1, 9, 10, 4_200, 1_764_478_800_123, Int64.max])
    func integers(_ value: Int64) {
        var written: [UInt8] = Array("x".utf8)
        JSONWriter.writeNumber(JSONNumber(value), to: &written)
        #expect(String(decoding: written, as: UTF8.self) == "x\(value)")
    }

    @Test("non-canonical input is normalized: whitespace dropped, needless escapes written plainly")
    func normalization() throws {
        let value = try JSONParser().parse(#" { "a" : [ 1 , "\u0041\/\u00e9\uD83D\uDE00" ] } "#)
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"a":[1,"A/é😀"]}"#)
    }

    @Test("each control character has one escape: short where RFC 8259 has one, else lowercase \\u00xx")
    func controlEscapes() throws {
        let short: [UInt8: String] = [0x08: #"\b"#, 0x09: #"\t"#, 0x0A: #"\n"#, 0x0C: #"\f"#, 0x0D: #"\r"#]
        for code in UInt8(0)...0x1F {
            let string = String(Unicode.Scalar(code))
            let hex = String(code, radix: 16)
            let expected = short[code] ?? (#"\u00"# + (hex.count == 1 ? "0" : "") + hex)
            let written = JSONValue.string(string).serialized()
            #expect(String(decoding: written, as: UTF8.self) == "\"\(expected)\"")
            #expect(try JSONParser().parse(written) == .string(string))
        }
        #expect(String(decoding: JSONValue.string("a\"b\\c").serialized(), as: UTF8.self) == #""a\"b\\c""#)
    }

    @Test("strings are written as the engine's JSONText writes them, except where that one escapes more")
    func agreesWithJSONText() {
        for text in ["", "plain", "quote \" and \\ backslash", "line\nfeed\r\ttab\u{1}\u{1F}", "é😀 ユーザー", "\u{7F}"] {
            #expect(String(decoding: JSONValue.string(text).serialized(), as: UTF8.self) == JSONText.quoted(text))
        }
        // JSONText escapes these for JavaScript embedding; the writer keeps non-ASCII as UTF-8.
        #expect(JSONValue.string("\u{2028}").serialized() == Array("\"\u{2028}\"".utf8))
        #expect(JSONText.quoted("\u{2028}") == #""\u2028""#)
    }

    @Test("members are written in stored order, numbers in canonical form")
    func constructedValues() throws {
        var object: JSONObject = ["z": 1, "a": "x"]
        object["m"] = [JSONValue.number(try #require(JSONNumber(0.5))), .null, true]
        object["z"] = 2
        let value = JSONValue.object(object)
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"z":2,"a":"x","m":[0.5,null,true]}"#)
        #expect(value.description == #"{"z":2,"a":"x","m":[0.5,null,true]}"#)
        let integers: JSONValue = [
            0, -1, 9, 10, -10, 1_764_478_800_123, .number(JSONNumber(Int64.min)),
            .number(JSONNumber(Int64.max)),
        ]
        #expect(
            String(decoding: integers.serialized(), as: UTF8.self)
                == "[0,-1,9,10,-10,1764478800123,-9223372036854775808,9223372036854775807]")
    }

    @Test("pretty output indents by two spaces and keeps empty containers short")
    func pretty() throws {
        let value = try JSONParser().parse(#"{"a":1,"b":[true,{"c":"d"}],"e":{},"f":[],"g":"h\n"}"#)
        let expected = """
            {
              "a": 1,
              "b": [
                true,
                {
                  "c": "d"
                }
              ],
              "e": {},
              "f": [],
              "g": "h\\n"
            }
            """
        #expect(String(decoding: value.prettySerialized(), as: UTF8.self) == expected)
        #expect(String(decoding: JSONValue.string("s").prettySerialized(), as: UTF8.self) == "\"s\"")
        #expect(String(decoding: JSONValue.array([]).prettySerialized(), as: UTF8.self) == "[]")
    }

    @Test("writing appends to what the buffer already holds")
    func appends() {
        var output = Array("prefix:".utf8)
        JSONWriter.write(["a": [1, 2]], to: &output)
        JSONWriter.writeString("é\"", to: &output)
        JSONWriter.writeNumber(JSONNumber(-12), to: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"prefix:{"a":[1,2]}"é\""-12"#)
    }
}
