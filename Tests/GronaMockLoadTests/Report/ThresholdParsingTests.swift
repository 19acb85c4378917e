import Testing

@testable import GronaMockLoad

@Suite struct ThresholdParsingTests {
    struct Good: Sendable, CustomTestStringConvertible {
        var expression: String
        var metric: ThresholdMetric
        var comparison: ThresholdComparison
        var value: Double
        var unit: LatencyUnit?
        var testDescription: String { expression }
    }

    static let good: [Good] = [
        Good(
            expression: "events.p99<10ms", metric: .latency(.endpoint(.events), .p99), comparison: .less, value: 10,
            unit: .ms),
        Good(
            expression: "config.p50<=2ms", metric: .latency(.endpoint(.config), .p50), comparison: .lessOrEqual,
            value: 2, unit: .ms),
        Good(expression: "http.max<1s", metric: .latency(.http, .max), comparison: .less, value: 1, unit: .s),
        Good(
            expression: "grants.p99.9 < 250us", metric: .latency(.endpoint(.grants), .p999), comparison: .less,
            value: 250, unit: .us),
        Good(
            expression: "  events.p90  >=  1.5 ms  ", metric: .latency(.endpoint(.events), .p90),
            comparison: .greaterOrEqual, value: 1.5, unit: .ms),
        Good(expression: "http.mean<800µs", metric: .latency(.http, .mean), comparison: .less, value: 800, unit: .us),
        Good(expression: "http.min>0us", metric: .latency(.http, .min), comparison: .greater, value: 0, unit: .us),
        Good(expression: "errors.rate<0.001", metric: .requests(.http, .errorRate), comparison: .less, value: 0.001),
        Good(expression: "errors.count==0", metric: .requests(.http, .errors), comparison: .equal, value: 0),
        Good(
            expression: "events.error_rate<1e-3", metric: .requests(.endpoint(.events), .errorRate), comparison: .less,
            value: 0.001),
        Good(
            expression: "config.rps>=50", metric: .requests(.endpoint(.config), .rps), comparison: .greaterOrEqual,
            value: 50),
        Good(expression: "http.count>1000", metric: .requests(.http, .count), comparison: .greater, value: 1000),
        Good(
            expression: "events.errors<=3", metric: .requests(.endpoint(.events), .errors), comparison: .lessOrEqual,
            value: 3),
        Good(expression: "retries.count<100", metric: .run(.retries), comparison: .less, value: 100),
        Good(expression: "dropped.count==0", metric: .run(.droppedCount), comparison: .equal, value: 0),
        Good(expression: "dropped.rate<0.01", metric: .run(.droppedRate), comparison: .less, value: 0.01),
        Good(
            expression: "events.acknowledged>=1e4", metric: .run(.eventsAcknowledged), comparison: .greaterOrEqual,
            value: 10_000),
        Good(
            expression: "events.acknowledged_rate>500", metric: .run(.eventsAcknowledgedRate), comparison: .greater,
            value: 500),
        Good(expression: "events.abandoned==0", metric: .run(.eventsAbandoned), comparison: .equal, value: 0),
        Good(expression: "events.rejected==0", metric: .run(.eventsRejected), comparison: .equal, value: 0),
        Good(expression: "events.unsent<=10", metric: .run(.eventsUnsent), comparison: .lessOrEqual, value: 10),
        Good(expression: "events.unconfirmed==0", metric: .run(.eventsUnconfirmed), comparison: .equal, value: 0),
        Good(expression: "configs.rejected==0", metric: .run(.configsRejected), comparison: .equal, value: 0),
        Good(expression: "grants.rejected < 1", metric: .run(.grantsRejected), comparison: .less, value: 1),
        Good(expression: "verify.doubled==0", metric: .run(.verifyDoubled), comparison: .equal, value: 0),
        Good(expression: "verify.lost==0", metric: .run(.verifyLost), comparison: .equal, value: 0),
        Good(expression: "verify.unacknowledged==0", metric: .run(.verifyUnacknowledged), comparison: .equal, value: 0),
        Good(expression: "verify.violations<=-0", metric: .run(.verifyViolations), comparison: .lessOrEqual, value: 0),
    ]

    @Test(arguments: good)
    func parses(_ row: Good) throws {
        let threshold = try Threshold(parsing: row.expression, verifyEnabled: true)
        #expect(threshold.metric == row.metric)
        #expect(threshold.comparison == row.comparison)
        #expect(threshold.value == row.value)
        #expect(threshold.unit == row.unit)
        #expect(threshold.expression == row.expression.trimmingSpaces)
    }

    @Test func aLatencyLimitIsInNanoseconds() throws {
        #expect(try Threshold(parsing: "events.p99<10ms", verifyEnabled: false).limit == 10_000_000)
        #expect(try Threshold(parsing: "events.p99<1.5s", verifyEnabled: false).limit == 1_500_000_000)
        #expect(try Threshold(parsing: "events.count<7", verifyEnabled: false).limit == 7)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var expression: String
        var verify = true
        var problem: ThresholdError.Problem
        /// A piece of the message a person reads.
        var says: String
        var testDescription: String { "\"\(expression)\"" }
    }

    static let bad: [Bad] = [
        Bad(expression: "", problem: .empty, says: "the expression is empty"),
        Bad(expression: "   ", problem: .empty, says: "METRIC OP VALUE"),
        Bad(expression: "events.p99", problem: .missingComparison, says: "OP one of <, <=, >, >=, =="),
        Bad(expression: "events.p99 10ms", problem: .missingComparison, says: "no comparison"),
        Bad(expression: "<10ms", problem: .missingMetric, says: "no metric"),
        Bad(expression: "events.p99<<10ms", problem: .unknownComparison("<<"), says: "\"<<\" is not a comparison"),
        Bad(expression: "events.p99=<10ms", problem: .unknownComparison("=<"), says: "use one of <, <=, >, >=, =="),
        Bad(expression: "events.count=5", problem: .unknownComparison("="), says: "\"=\" is not a comparison"),
        Bad(expression: "events.count!=5", problem: .unknownComparison("!="), says: "\"!=\""),
        Bad(expression: "events.p99<10ms<20ms", problem: .repeatedComparison, says: "more than one comparison"),
        Bad(expression: "events.p99 < = 10ms", problem: .repeatedComparison, says: "more than one comparison"),
        Bad(
            expression: "events.p95<10ms", problem: .unknownMetric("events.p95"),
            says: "unknown metric \"events.p95\"; did you mean events.p90 or events.p99?"),
        Bad(
            expression: "config.rejected>0", problem: .unknownMetric("config.rejected"),
            says: "did you mean configs.rejected?"),
        Bad(
            expression: "verify.double==0", problem: .unknownMetric("verify.double"),
            says: "did you mean verify.doubled?"),
        Bad(expression: "events.p999<10ms", problem: .unknownMetric("events.p999"), says: "unknown metric"),
        Bad(expression: "events.p99_9<10ms", problem: .unknownMetric("events.p99_9"), says: "unknown metric"),
        Bad(expression: "event.p99<10ms", problem: .unknownMetric("event.p99"), says: "unknown metric \"event.p99\""),
        Bad(expression: "events. p99<10ms", problem: .unknownMetric("events. p99"), says: "unknown metric"),
        Bad(expression: "EVENTS.P99<10ms", problem: .unknownMetric("EVENTS.P99"), says: "did you mean events.p99?"),
        Bad(expression: "p99<10ms", problem: .unknownMetric("p99"), says: "unknown metric \"p99\""),
        Bad(expression: "errors<0.1", problem: .unknownMetric("errors"), says: "unknown metric"),
        Bad(
            expression: "verify.lost==0", verify: false, problem: .needsVerification("verify.lost"),
            says: "verify.lost needs --verify"),
        Bad(
            expression: "verify.violations<1", verify: false, problem: .needsVerification("verify.violations"),
            says: "needs --verify"),
        Bad(
            expression: "verify.doubled==0", verify: false, problem: .needsVerification("verify.doubled"),
            says: "verify.doubled needs --verify"),
        Bad(expression: "events.p99<", problem: .missingValue, says: "no value after the comparison"),
        Bad(expression: "events.p99<ms", problem: .notANumber("ms"), says: "\"ms\" is not a number"),
        Bad(expression: "errors.rate<NaN", problem: .notANumber("NaN"), says: "not a number"),
        Bad(expression: "errors.rate<nan", problem: .notANumber("nan"), says: "not a number"),
        Bad(expression: "events.count<inf", problem: .notANumber("inf"), says: "not a number"),
        Bad(expression: "events.count<infinity", problem: .notANumber("infinity"), says: "not a number"),
        Bad(
            expression: "errors.count<0x10", problem: .hexadecimal("0x10"),
            says: "\"0x10\" is not a number: hexadecimal is not accepted"),
        Bad(expression: "events.p99<0X1fms", problem: .hexadecimal("0X1fms"), says: "hexadecimal"),
        Bad(expression: "events.count<-0x10", problem: .hexadecimal("-0x10"), says: "hexadecimal"),
        Bad(expression: "events.count<1,000", problem: .digitSeparator("1,000"), says: "without separators (1000)"),
        Bad(expression: "events.count<1_000", problem: .digitSeparator("1_000"), says: "not a number"),
        Bad(expression: "events.count<1 000", problem: .digitSeparator("1 000"), says: "not a number"),
        Bad(expression: "errors.rate<0,5", problem: .digitSeparator("0,5"), says: "a point for a fraction (0.5)"),
        Bad(
            expression: "events.count<10x", problem: .unexpectedUnit(metric: "events.count", kind: .count, text: "x"),
            says: "takes no unit"),
        Bad(expression: "events.count<.5", problem: .notANumber(".5"), says: "not a number"),
        Bad(expression: "events.count<1.", problem: .notANumber("1."), says: "not a number"),
        Bad(expression: "events.count<1e", problem: .notANumber("1e"), says: "not a number"),
        Bad(expression: "events.count<1e400", problem: .tooLarge("1e400"), says: "\"1e400\" is too large"),
        Bad(expression: "events.p99<1e300s", problem: .tooLarge("1e300s"), says: "too large"),
        Bad(expression: "events.p99<-5ms", problem: .negative("-5ms"), says: "\"-5ms\" is negative"),
        Bad(
            expression: "events.p99<10", problem: .missingUnit(metric: "events.p99"),
            says: "events.p99 is a latency and its value needs a unit (us, ms, s)"),
        Bad(expression: "http.max<1 minute", problem: .unknownUnit("minute"), says: "unknown unit \"minute\""),
        Bad(expression: "events.p99<10MS", problem: .unknownUnit("MS"), says: "in lower case: ms"),
        Bad(expression: "events.p99<10 sec", problem: .unknownUnit("sec"), says: "a latency takes us, ms, s"),
        Bad(
            expression: "events.count<10ms", problem: .unexpectedUnit(metric: "events.count", kind: .count, text: "ms"),
            says: "events.count is a count and takes no unit, found \"ms\""),
        Bad(
            expression: "config.rps>10/s", problem: .unexpectedUnit(metric: "config.rps", kind: .perSecond, text: "/s"),
            says: "a rate per second"),
        Bad(
            expression: "errors.rate<1%", problem: .percentage(metric: "errors.rate", percent: 1),
            says: "errors.rate is a fraction from 0 to 1, not a percentage: write 0.01 for 1%"),
        Bad(
            expression: "dropped.rate <= 0.5 %", problem: .percentage(metric: "dropped.rate", percent: 0.5),
            says: "write 0.005 for 0.5%"),
        Bad(
            expression: "events.count<5%", problem: .unexpectedUnit(metric: "events.count", kind: .count, text: "%"),
            says: "events.count is a count and takes no unit, found \"%\""),
        Bad(
            expression: "errors.rate<5", problem: .fractionAboveOne(metric: "errors.rate", value: "5"),
            says: "0.01 is 1%"),
        Bad(
            expression: "dropped.rate<=1.5", problem: .fractionAboveOne(metric: "dropped.rate", value: "1.5"),
            says: "from 0 to 1"),
    ]

    @Test(arguments: bad)
    func refuses(_ row: Bad) {
        #expect {
            try Threshold(parsing: row.expression, verifyEnabled: row.verify)
        } throws: { error in
            guard let error = error as? ThresholdError else { return false }
            let message = error.description
            return error.problem == row.problem && error.expression == row.expression
                && message.hasPrefix("threshold \"\(row.expression)\": ") && message.contains(row.says)
        }
    }

    @Test func aQuestionEndsTheSentence() {
        let message = ThresholdError(expression: "verify.double==0", problem: .unknownMetric("verify.double"))
        #expect(
            message.description.hasPrefix(
                "threshold \"verify.double==0\": unknown metric \"verify.double\"; "
                    + "did you mean verify.doubled?\n  valid metrics: "))
        let hex = ThresholdError(expression: "errors.count<0x10", problem: .hexadecimal("0x10"))
        #expect(
            hex.description.hasPrefix(
                "threshold \"errors.count<0x10\": \"0x10\" is not a number: hexadecimal "
                    + "is not accepted; write decimal digits such as 16.\n"))
    }

    /// Every refusal lists every metric, so that the fix is on the screen.
    @Test func theMessageListsTheValidMetrics() {
        let message = ThresholdError(expression: "events.p95<1ms", problem: .unknownMetric("events.p95")).description
        for scope in LoadScope.allCases { #expect(message.contains(scope.name)) }
        for statistic in LatencyStatistic.allCases { #expect(message.contains(statistic.rawValue)) }
        for statistic in RequestStatistic.allCases { #expect(message.contains(statistic.rawValue)) }
        for statistic in RunStatistic.allCases { #expect(message.contains(statistic.rawValue)) }
        #expect(message.contains("errors.rate") && message.contains("errors.count"))
        #expect(message.contains("us|ms|s"))
    }

    /// Every name the vocabulary makes reads back as the same metric.
    @Test func everyMetricNameRoundTrips() {
        var metrics: [ThresholdMetric] = RunStatistic.allCases.map { .run($0) }
        for scope in LoadScope.allCases {
            metrics += LatencyStatistic.allCases.map { .latency(scope, $0) }
            metrics += RequestStatistic.allCases.map { .requests(scope, $0) }
        }
        for metric in metrics { #expect(ThresholdMetric(name: metric.name) == metric, "\(metric.name)") }
        #expect(metrics.count == Set(metrics.map(\.name)).count)
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
