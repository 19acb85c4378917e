import GronaReferenceSDK
import Testing

@Suite("JSON")
struct JSONTests {
    @Test("objects keep their order, and serialise back to the same text")
    func order() throws {
        let text = #"{"z":1,"a":[true,null,"x\n\u00e9"],"m":{"k":-2.5}}"#
        let json = try JSONParser.parse(text)
        #expect(json.objectValue?.keys == ["z", "a", "m"])
        #expect(json.text == #"{"z":1,"a":[true,null,"x\né"],"m":{"k":-2.5}}"#)
    }

    @Test("a boolean is not a number")
    func boolIsNotNumber() throws {
        #expect(try JSONParser.parse("true") != JSONParser.parse("1"))
    }

    @Test(
        "refuses what RFC 8259 does not allow",
        arguments: [
            "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "+1", "\"\u{01}\"", "{\"a\":1,\"a\":2}", "nul", "[] []",
            "\"\\ud800\"", "\"\\x\"", String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ])
    func refuses(_ text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
    }

    @Test("invalid UTF-8 in a string is refused")
    func invalidUTF8() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }
}
