import GronaMockJSON

/// How one scenario went.
package struct TestResult: Sendable {
    package enum Outcome: Sendable {
        case passed
        case failed([Explanation])
        /// The service lacks these capabilities.
        case skipped(missing: [String])
    }

    package let name: String
    package let area: String
    package let scenario: String
    package let description: String
    package let outcome: Outcome
    package let durationMilliseconds: Int
    /// What happened, in order: steps, the SDK's requests, triggers, engine changes (bounded).
    package let log: [String]

    package init(
        name: String, area: String, scenario: String, description: String, outcome: Outcome,
        durationMilliseconds: Int, log: [String]
    ) {
        self.name = name
        self.area = area
        self.scenario = scenario
        self.description = description
        self.outcome = outcome
        self.durationMilliseconds = durationMilliseconds
        self.log = log
    }

    package var passed: Bool {
        if case .passed = outcome { true } else { false }
    }

    package var failed: Bool {
        if case .failed = outcome { true } else { false }
    }
}

/// Why a scenario failed, for a person: what was expected, what was observed, and the evidence (the requests
/// and events that show it).
package struct Explanation: Sendable {
    /// Where: `steps[3] render`, `expect[1]`, `setup`.
    package let place: String
    package let expected: String
    package let observed: String
    /// The scenario's sentence for what the SDK should have done, when it gives one.
    package let why: String?
    package let evidence: [String]

    package init(place: String, expected: String, observed: String, why: String? = nil, evidence: [String] = []) {
        self.place = place
        self.expected = expected
        self.observed = observed
        self.why = why
        self.evidence =
            Array(evidence.prefix(Self.maxEvidence))
            + (evidence.count > Self.maxEvidence ? ["… and \(evidence.count - Self.maxEvidence) more"] : [])
    }

    static let maxEvidence = 25

    /// The explanation as indented lines under a FAIL line.
    package var lines: [String] {
        var lines = ["\(place): expected \(expected)", "  observed \(observed)"]
        if let why { lines.append("  why: \(why)") }
        lines += evidence.map { "  | \($0)" }
        return lines
    }

    package var json: JSONValue {
        [
            "place": .string(place), "expected": .string(expected), "observed": .string(observed),
            "why": why.map(JSONValue.string) ?? .null, "evidence": .array(evidence.map(JSONValue.string)),
        ]
    }
}
