import Foundation
import GronaMock
import Testing

/// One vocabulary, checked through its type: the rows of the table tests below.
struct VocabularyCase: Sendable, CustomTestStringConvertible {
    var noun: String
    var knownNames: [String]
    /// Problems with the known names: each must read back as its own case and print as its name.
    var roundTrip: @Sendable () -> [String]
    /// Problems with `name`, which is not a known name: it must be kept, as sent, in `unknown`.
    var keeps: @Sendable (_ name: String) -> [String]
    var testDescription: String { noun }

    init<Name: Vocabulary>(_ vocabulary: Name.Type) {
        noun = Name.noun
        knownNames = Name.allCases.map(\.rawValue)
        roundTrip = {
            var problems: [String] = []
            for name in Name.allCases {
                let read = Name(rawValue: name.rawValue)
                if read != name { problems.append("\(name.rawValue) reads back as \(read)") }
                // A known name never reads as `unknown`, so `allCases` cannot hold an `unknown` either.
                if read == Name.unknown(name.rawValue) { problems.append("\(name.rawValue) reads as unknown") }
                if Name.known(name.rawValue) != name { problems.append("known(\(name.rawValue)) is not its case") }
                if !name.isKnown { problems.append("\(name.rawValue) is not known") }
                if "\(name)" != name.rawValue { problems.append("\(name.rawValue) prints as \(name)") }
            }
            if Name.knownNames != Name.allCases.map(\.rawValue).joined(separator: ", ") {
                problems.append("knownNames is \(Name.knownNames)")
            }
            return problems
        }
        keeps = { name in
            let read = Name(rawValue: name)
            var problems: [String] = []
            if read.rawValue != name { problems.append("\(name) became \(read.rawValue)") }
            if read != Name.unknown(name) { problems.append("\(name) is not unknown(\(name))") }
            if read.isKnown || Name.known(name) != nil { problems.append("\(name) is known") }
            if Name.allCases.contains(read) { problems.append("\(name) equals a known case") }
            return problems
        }
    }

    /// Every vocabulary of the contract (§4 and §7).
    static let all: [VocabularyCase] = [
        VocabularyCase(EventType.self), VocabularyCase(Arm.self), VocabularyCase(Placement.self),
        VocabularyCase(ActionKind.self), VocabularyCase(ActionResult.self), VocabularyCase(ScreenType.self),
        VocabularyCase(ComponentType.self), VocabularyCase(DecisionType.self), VocabularyCase(TreatmentType.self),
        VocabularyCase(Tone.self), VocabularyCase(ActionType.self), VocabularyCase(RouteType.self),
        VocabularyCase(TargetingField.self), VocabularyCase(TargetingOperator.self),
        VocabularyCase(Campaign.Status.self), VocabularyCase(Campaign.AssignmentUnit.self),
    ]
}

/// Each vocabulary is one type whose known names read back as themselves and whose other names are kept as
/// they came (a newer SDK's type must pass through, contract §4).
@Suite("Vocabularies")
struct VocabularyTests {
    @Test("every known name reads back as its own case, and prints as its name", arguments: VocabularyCase.all)
    func knownNamesRoundTrip(_ vocabulary: VocabularyCase) {
        #expect(!vocabulary.knownNames.isEmpty)
        #expect(Set(vocabulary.knownNames).count == vocabulary.knownNames.count, "a name is listed twice")
        #expect(vocabulary.roundTrip() == [])
    }

    @Test(
        "known names are spelled as contract §1 says: snake_case (targeting fields: a dotted path)",
        arguments: VocabularyCase.all)
    func spelling(_ vocabulary: VocabularyCase) {
        let pattern = vocabulary.noun == TargetingField.noun ? /[a-z]+\.[a-z][A-Za-z]*/ : /[a-z][a-z0-9_]*/
        for name in vocabulary.knownNames {
            #expect(name.wholeMatch(of: pattern) != nil, "\(name)")
        }
    }

    @Test("a name this version does not know is kept exactly as sent", arguments: VocabularyCase.all)
    func unknownNamesAreKept(_ vocabulary: VocabularyCase) throws {
        let first = try #require(vocabulary.knownNames.first)
        // A newer SDK's name, and the near misses that must not be taken for a known one.
        for name in ["from_a_newer_sdk", "", first.uppercased(), first + " ", " " + first, first + "s", "ü"] {
            #expect(vocabulary.keeps(name) == [], "\(name)")
        }
    }

    @Test("a decision type from a newer SDK is a case of its own, distinct from every known one")
    func newerDecisionType() {
        let carousel = DecisionType(rawValue: "carousel")
        #expect(carousel == .unknown("carousel") && carousel.rawValue == "carousel" && !carousel.isKnown)
        #expect(DecisionType(rawValue: "product_card") == .productCard)
        #expect(DecisionType(rawValue: "productCard") == .unknown("productCard"))
    }
}

/// Where a vocabulary name may still appear as a string literal in the code that compares them.
@Suite("Vocabulary names are not compared as strings")
struct VocabularyLiteralTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The string literals of `line` that are compared: after `==` or `!=`, in a `case` pattern (before its
    /// colon), or in a list made only of vocabulary names (`["add", "navigate"]`).
    static func comparedLiterals(_ line: Substring, names: Set<String>) -> [String] {
        let code = line.split(separator: "//", maxSplits: 1).first ?? ""
        var found = code.matches(of: /(?:==|!=)\s*"([^"\\]*)"/).map { String($0.1) }
        found += code.matches(of: /"([^"\\]*)"\s*(?:==|!=)/).map { String($0.1) }
        let trimmed = code.drop { $0 == " " }
        if trimmed.hasPrefix("case ") {
            let pattern = trimmed.prefix { $0 != ":" }
            found += pattern.matches(of: /"([^"\\]*)"/).map { String($0.1) }
        }
        for list in code.matches(of: /\[\s*("[^"\\]*"(?:\s*,\s*"[^"\\]*")+)\s*\]/) {
            let items = list.1.matches(of: /"([^"\\]*)"/).map { String($0.1) }
            if items.allSatisfy(names.contains) { found += items }
        }
        return found.filter(names.contains)
    }

    @Test("the engine and the load generator compare vocabularies as enums, never a name as a literal")
    func noComparedLiterals() throws {
        let names = Set(VocabularyCase.all.flatMap(\.knownNames))
        var checked = 0
        for folder in ["GronaMock", "GronaMockLoad"] {
            let root = Self.sources.appendingPathComponent(folder)
            let walker = try #require(FileManager.default.enumerator(atPath: root.path))
            for case let path as String in walker where path.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                checked += 1
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let literals = Self.comparedLiterals(line, names: names)
                    #expect(literals == [], "\(folder)/\(path):\(number + 1) compares \(literals) as strings")
                }
            }
        }
        #expect(checked > 100, "the walk found \(checked) files")
    }

    @Test(
        "the scan finds the comparisons it looks for",
        arguments: [
            (#"if placement == "cart_line" {"#, ["cart_line"]),
            (#"guard "offer" != type else {"#, ["offer"]),
            (#"case "product", "category":"#, ["product", "category"]),
            (#"case ("percent_off", let milli?) where milli > 0:"#, ["percent_off"]),
            (#"let kinds = ["add", "add_all", "replace"]"#, ["add", "add_all", "replace"]),
            (#"case .accepted: "accepted""#, []),
            (#"known: ["label", "action"]"#, []),
            (#"problems.error(path, "cart_line carries only substitute decisions")"#, []),
        ])
    func scanFinds(_ line: String, _ expected: [String]) {
        let names = Set(VocabularyCase.all.flatMap(\.knownNames))
        #expect(Self.comparedLiterals(line[...], names: names) == expected)
    }
}
