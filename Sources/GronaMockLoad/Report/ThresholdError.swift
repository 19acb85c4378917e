/// Why a `--threshold` expression was refused: a usage error (exit status 64) whose message names the
/// expression, says what is wrong in a sentence a person can act on, and lists the metrics there are.
package struct ThresholdError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Problem: Sendable, Equatable {
        case empty
        case missingComparison
        /// A run of comparison characters that is not one of the five (`=<`, `<<`, `=`, `!=`).
        case unknownComparison(String)
        /// A second comparison after the first (`events.p99<10ms<20ms`, `events.p99 < = 10ms`).
        case repeatedComparison
        case missingMetric
        case unknownMetric(String)
        /// A `verify.*` metric on a run without `--verify`.
        case needsVerification(String)
        case missingValue
        case notANumber(String)
        /// `0x10`: Swift would read it, a threshold does not.
        case hexadecimal(String)
        /// `1,000`, `1_000`, `1 000`, or a decimal comma (`0,5`).
        case digitSeparator(String)
        /// A number beyond any Double (`1e400`), or whose nanoseconds are.
        case tooLarge(String)
        case negative(String)
        case missingUnit(metric: String)
        case unknownUnit(String)
        /// A unit, or anything else, after a value that takes none.
        case unexpectedUnit(metric: String, kind: ThresholdMetric.Kind, text: String)
        case fractionAboveOne(metric: String, value: String)
        /// A fraction written as a percentage: `errors.rate<1%`.
        case percentage(metric: String, percent: Double)

        var sentence: String {
            let comparisons = ThresholdComparison.allCases.map(\.rawValue).joined(separator: ", ")
            let units = LatencyUnit.allCases.map(\.rawValue).joined(separator: ", ")
            return switch self {
            case .empty:
                "the expression is empty; write METRIC OP VALUE, as in events.p99<10ms"
            case .missingComparison:
                "no comparison; write METRIC OP VALUE with OP one of \(comparisons), as in events.p99<10ms"
            case .unknownComparison(let text):
                "\"\(text)\" is not a comparison; use one of \(comparisons)"
            case .repeatedComparison:
                "more than one comparison; a threshold compares one metric with one value"
            case .missingMetric:
                "no metric before the comparison"
            case .unknownMetric(let name):
                "unknown metric \"\(name)\""
                    + (ThresholdMetric.suggestion(for: name).map { "; did you mean \($0)?" } ?? "")
            case .needsVerification(let name):
                "\(name) needs --verify: it counts what the check after the run found"
            case .missingValue:
                "no value after the comparison"
            case .notANumber(let text):
                "\"\(text)\" is not a number; write digits such as 10, 0.5 or 1e3"
            case .hexadecimal(let text):
                "\"\(text)\" is not a number: hexadecimal is not accepted; write decimal digits such as 16"
            case .digitSeparator(let text):
                "\"\(text)\" is not a number: write digits without separators (1000), and a point for "
                    + "a fraction (0.5)"
            case .tooLarge(let text):
                "\"\(text)\" is too large"
            case .negative(let text):
                "\"\(text)\" is negative; every metric is 0 or more"
            case .missingUnit(let metric):
                "\(metric) is a latency and its value needs a unit (\(units)), as in \(metric)<10ms"
            case .unknownUnit(let text):
                "unknown unit \"\(text)\"; a latency takes \(units)"
                    + (LatencyUnit(text: text.lowercased()).map { ", in lower case: \($0.rawValue)" } ?? "")
            case .unexpectedUnit(let metric, let kind, let text):
                "\(metric) is \(kind.noun) and takes no unit, found \"\(text)\" after the number"
            case .fractionAboveOne(let metric, let value):
                "\(metric) is a fraction from 0 to 1 (0.01 is 1%), found \(value)"
            case .percentage(let metric, let percent):
                "\(metric) is a fraction from 0 to 1, not a percentage: write "
                    + "\(ReportFormat.shortest(percent / 100)) for \(ReportFormat.shortest(percent))%"
            }
        }
    }

    /// The expression as given.
    package var expression: String
    package var problem: Problem

    package init(expression: String, problem: Problem) {
        self.expression = expression
        self.problem = problem
    }

    package var description: String {
        let sentence = problem.sentence
        // A sentence that ends with a question (did you mean ...?) takes no full stop after it.
        let stop = sentence.hasSuffix("?") ? "" : "."
        return "threshold \"\(expression)\": \(sentence)\(stop)\n  valid metrics: \(ThresholdMetric.validMetrics)"
    }
}
