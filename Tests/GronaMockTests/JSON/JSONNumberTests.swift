import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@Suite("JSON numbers")
struct JSONNumberTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let int64: Int64?
        let double: Double?
        let isInteger: Bool
        var testDescription: String { text }
    }

    static let cases: [Case] = [
        Case(text: "0", int64: 0, double: 0, isInteger: true),
        Case(text: "-0", int64: 0, double: -0.0, isInteger: true),
        Case(text: "42", int64: 42, double: 42, isInteger: true),
        Case(text: "1764478799001", int64: 1_764_478_799_001, double: 1_764_478_799_001, isInteger: true),
        Case(text: "9223372036854775807", int64: .max, double: 9.223372036854775808e18, isInteger: true),
        Case(text: "9223372036854775808", int64: nil, double: 9_223_372_036_854_775_808, isInteger: true),
        Case(text: "-9223372036854775808", int64: .min, double: -9_223_372_036_854_775_808, isInteger: true),
        Case(text: "-9223372036854775809", int64: nil, double: -9.223372036854775808e18, isInteger: true),
        Case(text: "18446744073709551616", int64: nil, double: 18_446_744_073_709_551_616, isInteger: true),
        Case(text: "123456789012345678901234567890", int64: nil, double: 1.2345678901234568e29, isInteger: true),
        // JSON Schema's integer: a zero fractional part, however the number is written (Validation §6.1.1).
        Case(text: "1.0", int64: 1, double: 1, isInteger: true),
        Case(text: "1E2", int64: 100, double: 100, isInteger: true),
        Case(text: "1041.000", int64: 1041, double: 1041, isInteger: true),
        Case(text: "104100e-2", int64: 1041, double: 1041, isInteger: true),
        Case(text: "-1.5E+3", int64: -1500, double: -1500, isInteger: true),
        Case(text: "0.0", int64: 0, double: 0, isInteger: true),
        Case(text: "-0.0e7", int64: 0, double: -0.0, isInteger: true),
        Case(text: "0e-99999999999999999999", int64: 0, double: 0, isInteger: true),
        Case(text: "9223372036854775807.0", int64: .max, double: 9.223372036854775808e18, isInteger: true),
        Case(text: "9.223372036854775807e18", int64: .max, double: 9.223372036854775808e18, isInteger: true),
        Case(text: "9.223372036854775808e18", int64: nil, double: 9.223372036854775808e18, isInteger: true),
        Case(text: "-9.223372036854775808e18", int64: .min, double: -9.223372036854775808e18, isInteger: true),
        // Exact, not through a Double: 2^53 + 1 is not its nearest Double.
        Case(text: "9007199254740993.0", int64: 9_007_199_254_740_993, double: 9_007_199_254_740_992, isInteger: true),
        Case(text: "1e400", int64: nil, double: nil, isInteger: true),
        Case(text: "-1e400", int64: nil, double: nil, isInteger: true),
        Case(text: "1e99999999999999999999", int64: nil, double: nil, isInteger: true),
        // A fraction that is not zero is not an integer, however small.
        Case(text: "1041.5", int64: nil, double: 1041.5, isInteger: false),
        Case(text: "1e-2", int64: nil, double: 0.01, isInteger: false),
        Case(text: "0.1", int64: nil, double: 0.1, isInteger: false),
        Case(text: "-1.5", int64: nil, double: -1.5, isInteger: false),
        Case(text: "0.30000000000000000000000000001", int64: nil, double: 0.3, isInteger: false),
        Case(text: "1.00000000000000000000000000001", int64: nil, double: 1, isInteger: false),
        Case(text: "1e-400", int64: nil, double: 0, isInteger: false),
        Case(text: "12345e-99999999999999999999", int64: nil, double: 0, isInteger: false),
    ]

    @Test("keeps its exact text and converts only when exact", arguments: cases)
    func parsed(_ testCase: Case) throws {
        let value = try JSONParser().parse(testCase.text)
        let number = try #require(value.numberValue)
        #expect(number.text == testCase.text)
        #expect(number.int64 == testCase.int64)
        #expect(number.double == testCase.double)
        #expect(number.isInteger == testCase.isInteger)
        #expect(value.serialized() == Array(testCase.text.utf8))
        #expect(JSONNumber(text: testCase.text) == number)
        let inArray = try JSONParser().parse("[\(testCase.text)]")
        #expect(inArray.serialized() == Array("[\(testCase.text)]".utf8))
    }

    @Test("-0 keeps its sign and is not the integer 0")
    func negativeZero() throws {
        let value = try JSONParser().parse("-0")
        #expect(value != 0)
        #expect(value.int64Value == 0)
        #expect(value.doubleValue?.sign == .minus)
    }

    @Test("equality is equality of the text, and a parsed integer equals a constructed one")
    func equality() throws {
        #expect(try JSONParser().parse("12") == .number(JSONNumber(12)))
        #expect(JSONNumber(text: "5") == JSONNumber(5))
        #expect(JSONNumber(text: "5") == JSONNumber(Int64(5)))
        #expect(JSONNumber(5.0) != JSONNumber(5))
        #expect(JSONNumber(text: "1e2") != JSONNumber(text: "100"))
        #expect(Set([JSONNumber(7), JSONNumber(text: "7") ?? 0, JSONNumber(text: "7.0") ?? 0]).count == 2)
    }

    @Test("constructed numbers have canonical text")
    func constructed() {
        #expect(JSONNumber(42).text == "42")
        #expect(JSONNumber(-7).text == "-7")
        #expect(JSONNumber(Int64.min).text == "-9223372036854775808")
        #expect(JSONNumber(0.1)?.text == "0.1")
        #expect(JSONNumber(3.0)?.text == "3.0")
        #expect(JSONNumber(-0.0)?.text == "-0.0")
        #expect(JSONNumber(1e-5)?.text == "1e-05")
        #expect(JSONNumber(1e16)?.text == "1e+16")
        #expect(JSONNumber(Double.greatestFiniteMagnitude)?.text == "1.7976931348623157e+308")
        #expect(JSONNumber(Double.leastNonzeroMagnitude)?.text == "5e-324")
    }

    @Test("non-finite doubles cannot be constructed")
    func nonFinite() {
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(Double.infinity) == nil)
        #expect(JSONNumber(-Double.infinity) == nil)
    }

    @Test(
        "every constructed double is valid JSON that reads back as the same double",
        arguments: [
            0.1, -2.5, 1e-5, 1e16, 123_456.789, .leastNonzeroMagnitude, 1.7976931348623157e308, -0.0, 3.0,
            2.220446049250313e-16,
        ])
    func doubleRoundTrip(_ double: Double) throws {
        let number = try #require(JSONNumber(double))
        let parsed = try JSONParser().parse(JSONValue.number(number).serialized())
        #expect(parsed == .number(number))
        #expect(parsed.doubleValue?.bitPattern == double.bitPattern)
    }

    @Test(
        "text that is not exactly one number is refused",
        arguments: [
            "", "-", "+1", "01", "-01", " 1", "1 ", "1.", ".1", "1e", "0x10", "NaN", "Infinity", "1,2", "١",
        ])
    func invalidText(_ text: String) {
        #expect(JSONNumber(text: text) == nil)
    }
}
