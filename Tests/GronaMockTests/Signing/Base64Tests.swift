import GronaMock
import GronaMockTestSupport
import Testing

@Suite("Base64 and base64url, decoded strictly")
struct Base64Tests {
    @Test("round trips every length from 0 to 64 bytes", arguments: 0...64)
    func roundTrip(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        #expect(Base64.urlDecode(Base64.urlEncode(bytes)) == bytes)
        #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        #expect(!Base64.urlEncode(bytes).contains("="))
    }

    @Test("RFC 4648 §10 vectors")
    func vectors() {
        let cases = [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in cases {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test(
        "base64url rejects padding, the standard alphabet, stray characters, impossible lengths and spare bits",
        arguments: ["Zg==", "ab+c", "ab/c", "ab c", "a", "abcde", "Zh", "Zm9=", "ab\ncd", "é"])
    func urlRejects(text: String) {
        #expect(Base64.urlDecode(text) == nil)
    }

    @Test(
        "standard base64 requires exactly the padding the length needs",
        arguments: ["Zg", "Zg=", "Zm8", "Zm9v=", "Zh=="])
    func standardRejects(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
