/// A k6-style pass/fail condition on a run (`--threshold events.p99<10ms`): `METRIC OP VALUE`, whitespace
/// allowed around OP and between a number and its unit. A broken threshold makes the exit status 99.
package struct Threshold: Sendable, Equatable {
    /// The expression as given, trimmed, to be printed back in the report.
    package var expression: String
    package var metric: ThresholdMetric
    package var comparison: ThresholdComparison
    /// The value as written, in `unit` for a latency.
    package var value: Double
    /// The unit of a latency's value; nil for every other kind.
    package var unit: LatencyUnit?

    /// The value in the unit the metric is measured in: nanoseconds for a latency.
    package var limit: Double { value * (unit?.nanoseconds ?? 1) }

    /// Parses `expression`. `verifyEnabled` says whether the run has `--verify`: without it a `verify.*` metric
    /// could never be measured, so it is refused now rather than failed after the whole run.
    package init(parsing expression: String, verifyEnabled: Bool) throws(ThresholdError) {
        let trimmed = Self.trimmed(expression[...])
        func fail(_ problem: ThresholdError.Problem) -> ThresholdError {
            ThresholdError(expression: expression, problem: problem)
        }
        guard !trimmed.isEmpty else { throw fail(.empty) }
        guard let operatorStart = trimmed.firstIndex(where: ThresholdComparison.characters.contains) else {
            throw fail(.missingComparison)
        }
        let operatorEnd =
            trimmed[operatorStart...].firstIndex { !ThresholdComparison.characters.contains($0) } ?? trimmed.endIndex
        let metricText = Self.trimmed(trimmed[..<operatorStart])
        let operatorText = String(trimmed[operatorStart..<operatorEnd])
        let valueText = Self.trimmed(trimmed[operatorEnd...])
        guard !metricText.isEmpty else { throw fail(.missingMetric) }
        guard let comparison = ThresholdComparison(rawValue: operatorText) else {
            throw fail(.unknownComparison(operatorText))
        }
        guard !valueText.contains(where: ThresholdComparison.characters.contains) else {
            throw fail(.repeatedComparison)
        }
        // Messages name the metric as written: `errors.rate`, not the `http.error_rate` it stands for.
        let name = String(metricText)
        guard let metric = ThresholdMetric(name: metricText) else { throw fail(.unknownMetric(name)) }
        guard verifyEnabled || !metric.needsVerification else { throw fail(.needsVerification(name)) }
        guard !valueText.isEmpty else { throw fail(.missingValue) }

        let (value, unitText) = try Self.number(valueText, expression: expression)
        var unit: LatencyUnit?
        switch metric.kind {
        case .latency:
            guard !unitText.isEmpty else { throw fail(.missingUnit(metric: name)) }
            guard let latencyUnit = LatencyUnit(text: unitText) else { throw fail(.unknownUnit(String(unitText))) }
            guard (value * latencyUnit.nanoseconds).isFinite else { throw fail(.tooLarge(String(valueText))) }
            unit = latencyUnit
        case .count, .perSecond, .fraction:
            if unitText == "%", metric.kind == .fraction {
                throw fail(.percentage(metric: name, percent: value))
            }
            guard unitText.isEmpty else {
                throw fail(.unexpectedUnit(metric: name, kind: metric.kind, text: String(unitText)))
            }
            if metric.kind == .fraction, value > 1 {
                throw fail(.fractionAboveOne(metric: name, value: String(valueText)))
            }
        }
        self.expression = String(trimmed)
        self.metric = metric
        self.comparison = comparison
        self.value = value
        self.unit = unit
    }

    /// Splits `text` into a number (`digits[.digits][e[+-]digits]`, optionally signed, so that a sign is
    /// reported as such) and what follows it, trimmed. Swift's `Double(_:)` alone would take `nan`, `inf` and
    /// hexadecimal, none of which is a threshold. A number that goes on in a way no unit does (`0x10`,
    /// `1,000`, `1 000`) is refused for what it is, not as a number followed by a strange unit.
    private static func number(
        _ text: Substring, expression: String
    ) throws(ThresholdError) -> (Double, Substring) {
        func fail(_ problem: ThresholdError.Problem) -> ThresholdError {
            ThresholdError(expression: expression, problem: problem)
        }
        var index = text.startIndex
        func digits() -> Bool {
            let start = index
            while index < text.endIndex, text[index].isASCII, text[index].isNumber { index = text.index(after: index) }
            return index > start
        }
        func skip(_ characters: Set<Character>) -> Bool {
            guard index < text.endIndex, characters.contains(text[index]) else { return false }
            index = text.index(after: index)
            return true
        }
        let negative = index < text.endIndex && text[index] == "-"
        _ = skip(["-", "+"])
        var wellFormed = digits()
        if wellFormed, skip(["."]) { wellFormed = digits() }
        if wellFormed, skip(["e", "E"]) {
            _ = skip(["-", "+"])
            wellFormed = digits()
        }
        guard wellFormed, let value = Double(text[..<index]) else { throw fail(.notANumber(String(text))) }
        let rest = text[index...]
        if text[..<index].drop(while: { $0 == "-" || $0 == "+" }) == "0", rest.first == "x" || rest.first == "X" {
            throw fail(.hexadecimal(String(text)))
        }
        if let first = rest.first, [",", "_", " "].contains(first),
            let next = trimmed(rest.dropFirst()).first, next.isASCII, next.isNumber
        {
            throw fail(.digitSeparator(String(text)))
        }
        guard value.isFinite else { throw fail(.tooLarge(String(text[..<index]))) }
        guard !negative || value == 0 else { throw fail(.negative(String(text))) }
        return (abs(value), trimmed(rest))
    }

    private static func trimmed(_ text: Substring) -> Substring {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
            let last = text.lastIndex(where: { !$0.isWhitespace })
        else { return text[text.endIndex...] }
        return text[first...last]
    }
}
