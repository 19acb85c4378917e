import GronaMockJSON

/// A run's results, and its renderings: the JSON report (`--json`, the dashboard), JUnit XML (`--junit`) and
/// the text lines the command prints.
package struct ConformanceReport: Sendable {
    package let service: ServiceClient.Description
    /// Unix epoch milliseconds (the real clock).
    package let startedAt: Int64
    package var results: [TestResult]
    package var durationMilliseconds: Int

    package init(
        service: ServiceClient.Description, startedAt: Int64, results: [TestResult], durationMilliseconds: Int
    ) {
        self.service = service
        self.startedAt = startedAt
        self.results = results
        self.durationMilliseconds = durationMilliseconds
    }

    package var passed: Int { results.filter(\.passed).count }
    package var failed: Int { results.filter(\.failed).count }
    package var skipped: Int { results.count - passed - failed }

    /// `PASS area/name (12 ms)`, `FAIL area/name (12 ms)` with the explanation's lines, `SKIPPED area/name
    /// (missing capability: offline)`.
    package static func lines(for result: TestResult) -> [String] {
        switch result.outcome {
        case .passed:
            return ["PASS \(result.name) (\(result.durationMilliseconds) ms)"]
        case .skipped(let missing):
            let noun = missing.count == 1 ? "capability" : "capabilities"
            return ["SKIPPED \(result.name) (missing \(noun): \(missing.joined(separator: ", ")))"]
        case .failed(let explanations):
            return ["FAIL \(result.name) (\(result.durationMilliseconds) ms)"]
                + explanations.flatMap { $0.lines.map { "    " + $0 } }
        }
    }

    /// `12 passed, 1 failed, 2 skipped in 1840 ms (service: reference 1.0)`.
    package var summary: String {
        "\(passed) passed, \(failed) failed, \(skipped) skipped in \(durationMilliseconds) ms "
            + "(service: \(service.name) \(service.version))"
    }

    /// The JSON report (docs/conformance/schemas/report.schema.json).
    package func json(finished: Bool) -> JSONValue {
        let areas = Dictionary(grouping: results, by: \.area).map { area, results -> JSONValue in
            [
                "area": .string(area), "passed": .number(JSONNumber(results.filter(\.passed).count)),
                "failed": .number(JSONNumber(results.filter(\.failed).count)),
                "skipped": .number(JSONNumber(results.filter { !$0.passed && !$0.failed }.count)),
            ]
        }.sorted { ($0["area"]?.stringValue ?? "") < ($1["area"]?.stringValue ?? "") }
        return [
            "service": [
                "name": .string(service.name), "version": .string(service.version),
                "protocol": .number(JSONNumber(service.protocolVersion)),
                "capabilities": .array(service.capabilities.sorted().map(JSONValue.string)),
            ],
            "startedAt": .number(JSONNumber(startedAt)), "durationMs": .number(JSONNumber(durationMilliseconds)),
            "finished": .bool(finished),
            "summary": [
                "passed": .number(JSONNumber(passed)), "failed": .number(JSONNumber(failed)),
                "skipped": .number(JSONNumber(skipped)),
            ],
            "areas": .array(areas),
            "tests": .array(results.map(Self.json)),
        ]
    }

    private static func json(_ result: TestResult) -> JSONValue {
        var object: JSONObject = [
            "name": .string(result.name), "area": .string(result.area), "scenario": .string(result.scenario),
            "description": .string(result.description), "durationMs": .number(JSONNumber(result.durationMilliseconds)),
        ]
        switch result.outcome {
        case .passed:
            object.set("outcome", "passed")
        case .skipped(let missing):
            object.set("outcome", "skipped")
            object.set("missingCapabilities", .array(missing.map(JSONValue.string)))
        case .failed(let explanations):
            object.set("outcome", "failed")
            object.set("failures", .array(explanations.map(\.json)))
            object.set("log", .array(result.log.map(JSONValue.string)))
        }
        return .object(object)
    }

    /// JUnit XML as CI systems read it (the Jenkins / Ant schema): one `<testsuite>` per area, one `<testcase>`
    /// per scenario with the area as its `classname`, `<failure>` with the explanation and `<skipped>` with the
    /// missing capability.
    package var junit: String {
        let areas = Dictionary(grouping: results, by: \.area).sorted { $0.key < $1.key }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"grona-mock conformance\" tests=\"\(results.count)\" failures=\"\(failed)\" "
        xml += "skipped=\"\(skipped)\" time=\"\(Self.seconds(durationMilliseconds))\">\n"
        for (area, tests) in areas {
            let failures = tests.filter(\.failed).count
            let skips = tests.filter { !$0.passed && !$0.failed }.count
            let time = Self.seconds(tests.map(\.durationMilliseconds).reduce(0, +))
            xml += "  <testsuite name=\"\(Self.escaped(area))\" tests=\"\(tests.count)\" failures=\"\(failures)\" "
            xml += "skipped=\"\(skips)\" time=\"\(time)\">\n"
            for test in tests {
                xml += "    <testcase classname=\"\(Self.escaped(test.area))\" name=\"\(Self.escaped(test.scenario))\" "
                xml += "time=\"\(Self.seconds(test.durationMilliseconds))\""
                switch test.outcome {
                case .passed:
                    xml += "/>\n"
                case .skipped(let missing):
                    xml +=
                        ">\n      <skipped message=\"missing capability: \(Self.escaped(missing.joined(separator: ", ")))\"/>\n"
                    xml += "    </testcase>\n"
                case .failed(let explanations):
                    let first = explanations.first.map {
                        "\($0.place): expected \($0.expected), observed \($0.observed)"
                    }
                    xml += ">\n      <failure message=\"\(Self.escaped(first ?? "failed"))\">"
                    xml += Self.escaped(explanations.flatMap(\.lines).joined(separator: "\n"))
                    xml += "</failure>\n"
                    xml += "      <system-out>\(Self.escaped(test.log.joined(separator: "\n")))</system-out>\n"
                    xml += "    </testcase>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    /// Milliseconds as seconds with three decimals, as JUnit's `time` has them.
    static func seconds(_ milliseconds: Int) -> String {
        let padded = String(1000 + milliseconds % 1000).dropFirst()
        return "\(milliseconds / 1000).\(padded)"
    }

    /// Text for XML content and attributes (XML 1.0 §2.4, §3.3.3): the five escapes, and characters XML 1.0 cannot
    /// hold (controls but tab, newline and return) replaced, so that any log line makes a well-formed file.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    result += "\u{FFFD}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
