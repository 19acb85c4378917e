import GronaMockJSON

/// Checks a command's outcome against its step's `expect`.
enum ResultCheck {
    /// The explanations of what does not hold; empty when everything does.
    static func check(
        _ outcome: ServiceClient.CommandOutcome, against expectation: ResultExpectation, command: String,
        place: String, startMs: Int64
    ) -> [Explanation] {
        func failure(_ expected: String, _ observed: String, evidence: [String] = []) -> Explanation {
            Explanation(place: place, expected: expected, observed: observed, why: expectation.why, evidence: evidence)
        }
        let result: JSONValue
        switch outcome {
        case .refused(let reason):
            return expectation.refused ? [] : [failure("\(command) to succeed", "409 refused: \(reason)")]
        case .result(let value):
            if expectation.refused { return [failure("\(command) to be refused (409)", "200 \(value)")] }
            result = value
        }
        var explanations: [Explanation] = []
        if !expectation.slots.isEmpty {
            let slots = result["slots"]?.arrayValue ?? []
            for (slot, content) in expectation.slots {
                let shown = slots.first { slotName($0) == slot }?["content"].flatMap { $0.isNull ? nil : $0 }
                switch (content, shown) {
                case (nil, nil):
                    break
                case (nil, let shown?):
                    explanations.append(
                        failure(
                            "\(slot) to show nothing", "it shows \(describe(shown))", evidence: [result.description]))
                case (let matcher?, nil):
                    explanations.append(
                        failure(
                            "\(slot) to show \(matcher.described)", "it shows nothing", evidence: [result.description]))
                case (let matcher?, let shown?):
                    if !matcher.accepts(shown, startMs: startMs) {
                        explanations.append(
                            failure(
                                "\(slot) to show \(matcher.described)", "it shows \(describe(shown))",
                                evidence: [result.description]))
                    }
                }
            }
        }
        if let offers = expectation.offers {
            let listed = result["offers"]?.arrayValue ?? []
            if !matchesOneToOne(offers, listed, startMs: startMs) {
                explanations.append(
                    failure(
                        "offers \(offers.map(\.described).joined(separator: ", ")) (exactly \(offers.count))",
                        "\(listed.count): \(listed.map(\.description).joined(separator: ", "))"))
            }
        }
        if let fields = expectation.fields, !fields.accepts(result, startMs: startMs) {
            explanations.append(failure("the result to have \(fields.described)", result.description))
        }
        return explanations
    }

    /// `placement`, or `placement#key` for a keyed slot.
    static func slotName(_ slot: JSONValue) -> String? {
        guard let placement = slot["placement"]?.stringValue else { return nil }
        guard let key = slot["key"]?.stringValue else { return placement }
        return "\(placement)#\(key)"
    }

    private static func describe(_ content: JSONValue) -> String {
        let campaign = content["campaignID"]?.stringValue ?? "?"
        let variant = content["variantID"]?.stringValue ?? "?"
        return "\(campaign)/\(variant) \(content)"
    }

    /// Whether each matcher takes a different element and every element is taken (a small bipartite matching
    /// by augmenting paths: a service lists a handful of offers).
    static func matchesOneToOne(_ matchers: [FieldMatcher], _ elements: [JSONValue], startMs: Int64) -> Bool {
        guard matchers.count == elements.count else { return false }
        var owner = [Int?](repeating: nil, count: elements.count)
        func assign(_ matcher: Int, _ visited: inout [Bool]) -> Bool {
            for element in elements.indices
            where !visited[element] && matchers[matcher].accepts(elements[element], startMs: startMs) {
                visited[element] = true
                if owner[element] == nil || assign(owner[element] ?? 0, &visited) {
                    owner[element] = matcher
                    return true
                }
            }
            return false
        }
        for matcher in matchers.indices {
            var visited = [Bool](repeating: false, count: elements.count)
            if !assign(matcher, &visited) { return false }
        }
        return true
    }
}
