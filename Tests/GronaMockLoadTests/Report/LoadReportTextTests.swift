import Testing

@testable import GronaMockLoad

/// The report printed at the end of a run, checked for the figures a person looks for.
@Suite struct LoadReportTextTests {
    private func lines(_ report: LoadReport) -> [String] {
        report.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    private func line(_ report: LoadReport, startingWith prefix: String) throws -> String {
        try #require(lines(report).first { $0.hasPrefix(prefix) }, "no line starting \"\(prefix)\"")
    }

    @Test func settingsWithoutCredentials() throws {
        let report = try ReportFixtures.report()
        #expect(!report.text.contains("hunter2"))
        let first = try line(report, startingWith: "grona-mock load")
        #expect(
            first == "grona-mock load 1.2.3: http://***@127.0.0.1:8080/base, workspace acme-market, "
                + "seed 18446744073709551615")
        #expect(report.text.contains("100 installs, 100 visits/s (ramp from 10 over 2.5s) for 10s"))
        #expect(report.text.contains("elapsed 10.0s"))
    }

    @Test func fleetCounts() throws {
        let report = try ReportFixtures.report()
        #expect(
            try line(report, startingWith: "visits") == "visits      scheduled 1000, started 990, dropped 10 (1.00%)")
        let events = try line(report, startingWith: "events ")
        for figure in [
            "logged 5000", "acknowledged 4900 (490/s)", "accepted 4800", "duplicate 90", "rejected 10",
            "abandoned 50", "unsent 50",
        ] {
            #expect(events.contains(figure), "\(figure)")
        }
        #expect(try line(report, startingWith: "configs") == "configs     verified 90, rejected 0")
        #expect(try line(report, startingWith: "grants ") == "grants      verified 0, rejected 0")
    }

    /// Rows by endpoint under aligned headers: every column's right edge is where its header's is.
    @Test func endpointTable() throws {
        let report = try ReportFixtures.report()
        let all = lines(report)
        let header = try #require(all.firstIndex { $0.hasPrefix("endpoint") })
        let table = Array(all[header...(header + 4)])
        #expect(
            table[0].split(separator: " ") == [
                "endpoint", "requests", "req/s", "errors", "retries", "p50", "p90", "p99", "p99.9", "max",
            ])
        #expect(table.map { $0.split(separator: " ").first } == ["endpoint", "config", "grants", "events", "http"])
        #expect(Set(table.map(\.count)).count == 1, "\(table.joined(separator: "\n"))")
        #expect(
            table[1].split(separator: " ") == [
                "config", "100", "10.0", "0", "0", "1.00ms", "1.00ms", "1.00ms", "1.00ms", "1.00ms",
            ])
        #expect(table[2].split(separator: " ") == ["grants", "0", "0.0", "0", "0", "-", "-", "-", "-", "-"])
        let events = table[3].split(separator: " ").map(String.init)
        #expect(Array(events[0..<5]) == ["events", "200", "20.0", "10", "5"])
        #expect(events[5] == "10.0ms" && events[9] == "20.0ms")
        #expect(events[7].hasPrefix("19.") && events[7].hasSuffix("ms"))
        #expect(table[4].split(separator: " ").prefix(5) == ["http", "300", "30.0", "10", "5"])
        // Under the table, the part of those latencies before the generator handed requests over, every endpoint.
        let lag = all[header + 5]
        #expect(lag.hasPrefix("start lag   p50 "), "\(lag)")
        #expect(
            lag.hasSuffix(
                ", max 2.00ms (of the latencies above, the part before the generator handed each request over)"),
            "\(lag)")
        if HTTPClient.stampsAnswers {
            let answer = all[header + 6]
            #expect(answer.hasPrefix("answer lag  p50 "), "\(answer)")
            #expect(
                answer.hasSuffix(
                    ", max 1.00ms (of the latencies above, the part each answer waited before the generator read it)"),
                "\(answer)")
        }
    }

    @Test func statusesAndFailures() throws {
        let all = lines(try ReportFixtures.report())
        #expect(all.contains("statuses    config 200: 90, 304: 10"))
        #expect(all.contains("            events 200: 190, 429: 5"))
        #expect(all.contains("failures    events closed 3, timeout 2"))
    }

    @Test func verificationThresholdsAndResult() throws {
        let report = try ReportFixtures.report(
            thresholds: ["events.p99<19ms", "errors.rate<0.1", "http.rps>=30", "grants.p99<1s", "verify.lost==0"],
            verification: ReportFixtures.verification)
        let text = report.text
        #expect(
            text.contains(
                "verify      FAIL  acknowledged 4900, stored 4899, lost 1, unacknowledged 0, doubled 0, violations 1"))
        #expect(text.contains("lost: ev-lost-1"))
        // The server's text cannot reach the terminal's escape sequences.
        #expect(!text.contains("\u{1B}"))
        #expect(text.contains("violation event_id_reused: ?[31mred?[0m"))
        let all = lines(report)
        let start = try #require(all.firstIndex(of: "thresholds"))
        let rows = all[(start + 1)...(start + 5)].map { $0.split(separator: " ").map(String.init) }
        #expect(rows[0].prefix(2) == ["FAIL", "events.p99<19ms"])
        #expect(rows[0][2].hasPrefix("19.") && rows[0][2].hasSuffix("ms"))
        #expect(rows[1] == ["PASS", "errors.rate<0.1", "0.033333", "(3.33%)"])
        #expect(rows[2] == ["PASS", "http.rps>=30", "30.0/s"])
        #expect(rows[3] == ["FAIL", "grants.p99<1s", "no", "requests"])
        #expect(rows[4] == ["FAIL", "verify.lost==0", "1"])
        #expect(all.contains("result      FAIL (verification failed; 3 of 5 thresholds broken), with 2 warnings"))
    }

    /// The fixture abandoned 50 events and left 50 unsent: a PASS, with the two warnings.
    @Test func aPassingRunEndsWithPass() throws {
        let report = try ReportFixtures.report(thresholds: ["events.p99<1s"])
        #expect(report.text.hasSuffix("\nresult      PASS, with 2 warnings\n"))
        #expect(!report.text.contains("verify "))
    }

    @Test func offlineRunTagAndInterruptionInTheHeader() throws {
        var run = ReportFixtures.run
        run.offlineShare = 0.1
        run.offlineSeconds = 30
        run.runTag = "ci-42"
        var statistics = ReportFixtures.statistics
        statistics.interrupted = true
        let report = LoadReport(run: run, statistics: statistics, elapsedSeconds: 4.25)
        let all = lines(report)
        #expect(all[0].hasSuffix(", seed 18446744073709551615, run tag ci-42"))
        #expect(all.contains("  offline: 10% of installs, once each, for 30s"))
        #expect(all.contains("  elapsed 4.3s, interrupted (Ctrl-C): the figures cover what ran"))
        // Without them the header says nothing of them.
        let plain = try ReportFixtures.report().text
        for word in ["run tag", "offline", "interrupted"] { #expect(!plain.contains(word), "\(word)") }
    }

    @Test func unconfirmedEventsAreShownWhenThereAreSome() throws {
        var statistics = ReportFixtures.statistics
        statistics.eventsUnconfirmed = 349
        let report = LoadReport(run: ReportFixtures.run, statistics: statistics, elapsedSeconds: 10)
        #expect(try line(report, startingWith: "events ").hasSuffix("unsent 50, unconfirmed 349"))
        #expect(try !line(ReportFixtures.report(), startingWith: "events ").contains("unconfirmed"))
    }

    /// Samples of unacknowledged events as of lost ones, at most ten of each whatever the engine collected.
    @Test func verificationSamples() throws {
        let verification = LoadVerification(
            acknowledged: 10, stored: 22, unacknowledged: 12, sampleUnacknowledged: (1...12).map { "ev-\($0)" },
            sampleViolations: (1...11).map { "rule: \($0)" })
        let report = try ReportFixtures.report(verification: verification)
        let all = lines(report)
        let sample = try #require(all.first { $0.hasPrefix("            unacknowledged: ") })
        #expect(sample == "            unacknowledged: " + (1...10).map { "ev-\($0)" }.joined(separator: ", "))
        #expect(!all.contains { $0.hasPrefix("            lost:") })
        #expect(all.filter { $0.hasPrefix("            violation rule: ") }.count == 10)
    }

    @Test(arguments: [
        (0.0, "0.00µs"), (999.0, "1.00µs"), (8_120.0, "8.12µs"), (812_000.0, "812µs"), (999_600.0, "1.00ms"),
        (1_210_000.0, "1.21ms"), (12_345_678.0, "12.3ms"), (123_456_789.0, "123ms"), (1_500_000_000.0, "1.50s"),
        (4_000_000_000_000.0, "4000s"), (-1.0, "-"), (Double.nan, "-"),
    ])
    func latencyUnits(nanoseconds: Double, text: String) {
        #expect(ReportFormat.latency(nanoseconds: nanoseconds) == text)
    }

    @Test func fixedDecimals() {
        #expect(ReportFormat.fixed(2.5, decimals: 1) == "2.5")
        #expect(ReportFormat.fixed(0.0004, decimals: 3) == "0.000")
        #expect(ReportFormat.fixed(-0.0004, decimals: 3) == "0.000")
        #expect(ReportFormat.fixed(-1.25, decimals: 2) == "-1.25")
        #expect(ReportFormat.fixed(1.05, decimals: 0) == "1")
        #expect(ReportFormat.fixed(1e30, decimals: 2) == "1e+30")
        #expect(ReportFormat.plain(2.125) == "2.125")
        #expect(ReportFormat.plain(20) == "20")
        #expect(ReportFormat.clock(seconds: 3_725) == "1h02m")
        #expect(ReportFormat.clock(seconds: 65) == "1m05s")
    }
}
