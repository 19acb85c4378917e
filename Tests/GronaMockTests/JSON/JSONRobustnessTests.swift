import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// SplitMix64: a fixed seed gives the same inputs on every run and platform, so a failure can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

@Suite("JSON parser robustness")
struct JSONRobustnessTests {
    /// Bytes that matter to the grammar, weighted so that random strings often get deep into it.
    private static let alphabet =
        Array(#"{}[]:,"\/ubfnrt0123456789-+.eEaxlsDdE\ "#.utf8)
        + [
            0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x7F, 0x80, 0xBF, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0xF0, 0x9F,
            0xF4, 0x90, 0xFF,
        ]

    private static let seeds: [String] = [
        #"{"workspaceKey":"acme-market","installID":"6b2a8f0c","sdk":{"platform":"ios","version":"1.4.0"},"#
            + #""sentAt":1764478800123,"events":[{"eventID":"0f8e","type":"exposure","timestamp":1764478799001,"#
            + #""customerID":null,"demo":false,"screen":{"type":"home"},"label":"Fr\u00fchling \ud83d\ude00 é"}]}"#,
        #"[-0,1e400,1.5E-7,12345678901234567890,true,false,null,"\b\f\n\r\t\"\\\/",{"":[]},[[[{}]]]]"#,
        "{\n  \"campaigns\": [\n    { \"id\": \"a\", \"weight\": 5000 },\n"
            + "    { \"id\": \"b\", \"weight\": 0.5e3 }\n  ]\n}",
    ]

    /// Checks what every outcome must satisfy: an error positioned inside the input, or a value that survives a
    /// round trip through both serializations.
    private func check(_ input: [UInt8]) {
        do {
            let value = try JSONParser(maximumDepth: 16).parse(input)
            let compact = value.serialized()
            #expect(try JSONParser(maximumDepth: 16).parse(compact) == value)
            #expect(try JSONParser(maximumDepth: 16).parse(value.prettySerialized()) == value)
            #expect(try JSONParser(maximumDepth: 16).parse(compact).serialized() == compact)
            // The text compacted in place is the value written again, and the kept elements are the array's.
            #expect(JSONWriter.compacted(input, range: 0..<input.count) == compact)
            let (kept, elements) = try JSONParser(maximumDepth: 16).parse(input, keepingTextOf: "events")
            #expect(kept == value)
            let events = value.objectValue?["events"]?.arrayValue ?? []
            #expect(elements.count == events.count)
            for (range, event) in zip(elements, events) {
                #expect(JSONWriter.compacted(input, range: range) == event.serialized())
            }
        } catch {
            #expect((0...input.count).contains(error.offset), "\(error) in \(input)")
            #expect(error.line >= 1 && error.column >= 1 && error.column <= error.offset + 1)
            #expect(!error.reason.isEmpty)
        }
    }

    @Test("random byte strings give a value or a positioned error")
    func randomBytes() {
        var generator = SeededGenerator(state: 0x6772_6F6E_61)
        for _ in 0..<3000 {
            let length = Int.random(in: 0...48, using: &generator)
            let input = (0..<length).map { _ in
                Bool.random(using: &generator)
                    ? Self.alphabet[Int.random(in: 0..<Self.alphabet.count, using: &generator)]
                    : UInt8.random(in: 0...255, using: &generator)
            }
            check(input)
        }
    }

    @Test("random mutations of valid documents give a value or a positioned error")
    func mutations() throws {
        var generator = SeededGenerator(state: 0x4A53_4F4E)
        var accepted = 0
        for round in 0..<3000 {
            var input = Array(Self.seeds[round % Self.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<input.count, using: &generator)
                let replacement = Self.alphabet[Int.random(in: 0..<Self.alphabet.count, using: &generator)]
                switch Int.random(in: 0..<5, using: &generator) {
                case 0: input[position] = replacement
                case 1: input.insert(replacement, at: position)
                case 2: if input.count > 1 { input.remove(at: position) }
                case 3: input[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
                default:
                    let end = min(input.count, position + Int.random(in: 1...12, using: &generator))
                    input.insert(
                        contentsOf: input[position..<end], at: Int.random(in: 0...input.count, using: &generator))
                }
            }
            if (try? JSONParser(maximumDepth: 16).parse(input)) != nil { accepted += 1 }
            check(input)
        }
        // The mutations must exercise both outcomes, or the test proves less than it claims.
        #expect(accepted > 50)
        #expect(accepted < 2900)
    }

    @Test("random values survive serialization and parsing unchanged")
    func randomValues() throws {
        var generator = SeededGenerator(state: 0x5641_4C55_45)
        for _ in 0..<500 {
            let value = randomValue(depth: 0, using: &generator)
            let compact = value.serialized()
            #expect(try JSONParser().parse(compact) == value)
            #expect(try JSONParser().parse(value.prettySerialized()) == value)
        }
    }

    private func randomValue(depth: Int, using generator: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0..<(depth < 5 ? 8 : 5), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .number(JSONNumber(Int64.random(in: .min ... .max, using: &generator)))
        case 3:
            let double = Double(bitPattern: UInt64.random(in: 0 ... .max, using: &generator))
            return JSONNumber(double).map(JSONValue.number) ?? .null
        case 4: return .string(randomString(using: &generator))
        case 5, 6:
            let count = Int.random(in: 0...4, using: &generator)
            return .array((0..<count).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                object[randomString(using: &generator)] = randomValue(depth: depth + 1, using: &generator)
            }
            return .object(object)
        }
    }

    /// Scalars from every UTF-8 length, control characters and the characters that need escapes.
    private func randomString(using generator: inout SeededGenerator) -> String {
        let ranges: [ClosedRange<UInt32>] = [
            0x00...0x1F, 0x20...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF,
            0x10000...0x10FFFF, 0x22...0x22, 0x5C...0x5C,
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            let range = ranges[Int.random(in: 0..<ranges.count, using: &generator)]
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &generator)) { scalars.append(scalar) }
        }
        return String(scalars)
    }
}
