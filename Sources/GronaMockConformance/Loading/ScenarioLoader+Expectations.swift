import GronaMock
import GronaMockJSON

extension ScenarioLoader {
    package static let expectationKinds = ["events", "requests", "order", "duplicates", "rejected", "noViolations"]

    static func expectationList(
        _ value: JSONValue?, at path: JSONPath, reader: inout ScenarioReader, nonEmpty: Bool = false
    ) -> [Expectation] {
        (reader.array(value, at: path, what: "expectations", nonEmpty: nonEmpty) ?? []).enumerated().compactMap {
            index, element in expectation(element, at: path.appending(index), reader: &reader)
        }
    }

    private static func expectation(_ value: JSONValue, at path: JSONPath, reader: inout ScenarioReader) -> Expectation?
    {
        guard let object = value.objectValue else {
            reader.problem(
                path, "an expectation must be an object with one of \(expectationKinds.joined(separator: ", "))")
            return nil
        }
        guard let kind = reader.discriminator(object, at: path, kinds: expectationKinds, what: "an expectation") else {
            return nil
        }
        let allowed: [String] =
            switch kind {
            case "events": ["events", "count", "why"]
            case "requests": ["requests", "count", "window", "spacingMs", "why"]
            case "noViolations": ["noViolations", "except", "why"]
            default: [kind, "why"]
            }
        _ = reader.object(value, at: path, allowed: allowed, what: "a \(ScenarioReader.quoted(kind)) expectation")
        let why = reader.string(object["why"], at: path.appending("why"), what: "why")
        let countPath = path.appending("count")
        let parsed: Expectation.Kind?
        switch kind {
        case "events":
            let matcher = fieldMatcher(object["events"], at: path.appending("events"), reader: &reader)
            let count = countRange(object["count"], at: countPath, reader: &reader)
            parsed = matcher.map { .events($0, count ?? .atLeastOne) }
        case "requests":
            let matcher = fieldMatcher(object["requests"], at: path.appending("requests"), reader: &reader)
            if let fields = object["requests"]?.objectValue, fields["endpoint"] == nil {
                reader.problem(
                    path.appending("requests"), "a requests matcher names its endpoint: config, grants or events")
            }
            let count = countRange(object["count"], at: countPath, reader: &reader)
            let window = self.window(object["window"], at: path.appending("window"), reader: &reader)
            let spacing = (reader.array(object["spacingMs"], at: path.appending("spacingMs"), what: "spacingMs") ?? [])
                .enumerated().compactMap { index, element in
                    reader.integer(
                        element, at: path.appending("spacingMs").appending(index), in: 0...86_400_000, what: "a spacing"
                    )
                }
            parsed = matcher.map { .requests($0, count ?? .atLeastOne, window: window, spacingMs: spacing) }
        case "order":
            let list = reader.array(object["order"], at: path.appending("order"), what: "order", nonEmpty: true) ?? []
            let matchers = list.enumerated().compactMap { index, element in
                fieldMatcher(element, at: path.appending("order").appending(index), reader: &reader)
            }
            parsed = matchers.count == list.count && list.count >= 2 ? .order(matchers) : nil
            if list.count == 1 { reader.problem(path.appending("order"), "order needs two matchers at least") }
        case "duplicates", "rejected":
            let count = countRange(object[kind], at: path.appending(kind), reader: &reader)
            parsed = count.map { kind == "duplicates" ? .duplicates($0) : .rejected($0) }
        default:
            if object["noViolations"]?.boolValue != true {
                reader.problem(path.appending("noViolations"), "noViolations must be true")
            }
            let rules = Set(ViolationRule.allCases.map(\.rawValue))
            let except = (reader.array(object["except"], at: path.appending("except"), what: "except") ?? [])
                .enumerated().compactMap { index, element -> String? in
                    guard let name = element.stringValue, rules.contains(name) else {
                        reader.problem(
                            path.appending("except").appending(index),
                            "not a violation rule; the rules are \(rules.sorted().joined(separator: ", "))")
                        return nil
                    }
                    return name
                }
            parsed = .noViolations(except: Set(except))
        }
        return parsed.map { Expectation(kind: $0, why: why, source: value) }
    }

    /// A whole number (exactly that many) or `{"min", "max"}`.
    static func countRange(_ value: JSONValue?, at path: JSONPath, reader: inout ScenarioReader) -> CountRange? {
        guard let value else { return nil }
        if let exact = value.int64Value, exact >= 0 { return CountRange(min: Int(exact), max: Int(exact)) }
        guard
            let object = reader.object(
                value, at: path, allowed: ["min", "max"], what: "a count (a number, or {min, max})")
        else { return nil }
        let min = reader.integer(object["min"], at: path.appending("min"), in: 0...1_000_000, what: "min") ?? 0
        let max = reader.integer(object["max"], at: path.appending("max"), in: 0...1_000_000, what: "max")
        if let max, max < min { reader.problem(path, "max is below min") }
        return CountRange(min: Int(min), max: max.map(Int.init))
    }

    private static func window(_ value: JSONValue?, at path: JSONPath, reader: inout ScenarioReader) -> ClosedRange<
        Int64
    >? {
        guard let value,
            let object = reader.object(
                value, at: path, allowed: ["fromMs", "toMs"], required: ["fromMs", "toMs"], what: "window"),
            let from = reader.integer(
                object["fromMs"], at: path.appending("fromMs"), in: -86_400_000...86_400_000 * 366, what: "fromMs"),
            let to = reader.integer(
                object["toMs"], at: path.appending("toMs"), in: -86_400_000...86_400_000 * 366, what: "toMs")
        else { return nil }
        guard from <= to else {
            reader.problem(path, "fromMs is after toMs")
            return nil
        }
        return from...to
    }

    /// What a command's result must show: `{"refused", "slots", "offers", "fields", "why"}`.
    static func resultExpectation(_ value: JSONValue, at path: JSONPath, reader: inout ScenarioReader)
        -> ResultExpectation?
    {
        guard
            let object = reader.object(
                value, at: path, allowed: ["refused", "slots", "offers", "fields", "why"], what: "expect")
        else { return nil }
        var expectation = ResultExpectation()
        expectation.source = value
        expectation.refused = reader.boolean(object["refused"], at: path.appending("refused"), what: "refused") ?? false
        expectation.why = reader.string(object["why"], at: path.appending("why"), what: "why")
        if let slots = object["slots"] {
            if slots.objectValue == nil {
                reader.problem(path.appending("slots"), "slots must be an object: {\"home_top\": {…} or null}")
            }
            for member in slots.objectValue ?? [:] {
                if member.value.isNull {
                    expectation.slots.append((member.key, nil))
                } else if let matcher = fieldMatcher(
                    member.value, at: path.appending("slots").appending(member.key), reader: &reader)
                {
                    expectation.slots.append((member.key, matcher))
                }
            }
        }
        if let offers = reader.array(object["offers"], at: path.appending("offers"), what: "offers") {
            expectation.offers = offers.enumerated().compactMap { index, element in
                fieldMatcher(element, at: path.appending("offers").appending(index), reader: &reader)
            }
        }
        expectation.fields = object["fields"].flatMap {
            fieldMatcher($0, at: path.appending("fields"), reader: &reader)
        }
        return expectation
    }

    /// `{"dotted.path": value matcher, …}`.
    static func fieldMatcher(_ value: JSONValue?, at path: JSONPath, reader: inout ScenarioReader) -> FieldMatcher? {
        guard let value else {
            reader.problem(path, "a matcher is required: an object of fields, {} for any")
            return nil
        }
        guard let object = value.objectValue else {
            reader.problem(path, "a matcher must be an object of fields, not \(ScenarioReader.shown(value))")
            return nil
        }
        var fields: [(path: [String], matcher: ValueMatcher)] = []
        for member in object {
            let segments = member.key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !segments.contains(where: \.isEmpty) else {
                reader.problem(path.appending(member.key), "a field path is names joined by '.'")
                continue
            }
            if let matcher = valueMatcher(member.value, at: path.appending(member.key), reader: &reader) {
                fields.append((segments, matcher))
            }
        }
        return FieldMatcher(fields: fields, source: value)
    }
}
