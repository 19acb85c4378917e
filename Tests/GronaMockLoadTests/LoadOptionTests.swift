import Testing

@testable import GronaMockLoad

/// The value forms of `grona-mock load`'s options: what is taken, and what is refused with a sentence that
/// names the option.
@Suite struct LoadOptionTests {
    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("10s", .seconds(10)), ("2m", .seconds(120)),
        ("1.5", .milliseconds(1500)),
        ("0s", .zero),
    ])
    func durations(text: String, expected: Duration) throws {
        #expect(try LoadSettings.duration(text, option: "duration") == expected)
    }

    @Test(arguments: ["", "ten", "-1s", "5d", "2days", "inf", "90000s"])
    func badDurationsNameTheOption(text: String) {
        do {
            let duration = try LoadSettings.duration(text, option: "batch-age")
            Issue.record("\(text) was taken as \(duration)")
        } catch {
            #expect(error.description.hasPrefix("--batch-age must be a duration"))
        }
    }

    @Test func targets() throws {
        #expect(try LoadSettings.target("http://127.0.0.1:8080") == ("127.0.0.1", 8080))
        #expect(try LoadSettings.target("http://localhost/") == ("localhost", 80))
        #expect(try LoadSettings.target("http://[::1]:9000") == ("::1", 9000))
        #expect(try LoadSettings.target("https://example.com") == ("example.com", 443))
        #expect(try LoadSettings.target("https://ingest.example.com:8443/") == ("ingest.example.com", 8443))
        for bad in [
            "https://", "httpss://x", "http://host:0", "http://host:99999", "http://host/path", "ftp://x", "http://",
        ] {
            #expect(throws: LoadSettings.OptionError.self, "\(bad)") { try LoadSettings.target(bad) }
        }
    }

    @Test func offlineAndShares() throws {
        let (share, duration) = try LoadSettings.offline("0.25:30s")
        #expect(share == 0.25)
        #expect(duration == .seconds(30))
        #expect(throws: LoadSettings.OptionError.self) { try LoadSettings.offline("0.25") }
        #expect(throws: LoadSettings.OptionError.self) { try LoadSettings.share("1.5", option: "identified") }
        #expect(throws: LoadSettings.OptionError.self) { try LoadSettings.rate("0", option: "rate", allowZero: false) }
        #expect(try LoadSettings.rate("0", option: "ramp-from", allowZero: true) == 0)
    }
}
