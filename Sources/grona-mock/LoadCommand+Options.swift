import GronaMock
import GronaMockLoad
import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LoadCommand {
    /// The settings the options say; a usage error names the option at fault (or the environment variable
    /// that gave the value). `arguments` tell an option given from one left to its default.
    static func settings(from parsed: ParsedOptions, arguments: [String]) throws(UsageError) -> LoadSettings {
        do {
            return try makeSettings(parsed, given: { name in isGiven(name, in: arguments) })
        } catch let error as UsageError {
            throw error
        } catch let error as LoadSettings.OptionError {
            throw UsageError(error.description)
        } catch {
            throw UsageError("\(error)")
        }
    }

    private static func makeSettings(_ parsed: ParsedOptions, given: (String) -> Bool) throws -> LoadSettings {
        var settings = LoadSettings()
        let url = parsed.value("url") ?? "http://127.0.0.1:8080"
        (settings.host, settings.port) = try LoadSettings.target(url, option: given("url") ? "--url" : "GRONA_MOCK_URL")
        settings.tls = try LoadSettings.tlsContext(url: url, caFile: parsed.value("cacert"))
        let workspace = parsed.value("workspace") ?? "acme-market"
        guard isWorkspaceKey(workspace) else {
            throw UsageError("--workspace must be a workspace key ([a-z0-9][a-z0-9-]{0,62}), not \"\(workspace)\"")
        }
        settings.workspace = workspace
        settings.installs = try parsed.integer("installs", in: 1...1_000_000) ?? 100
        settings.rate = try LoadSettings.rate(parsed.value("rate") ?? "20", option: "rate", allowZero: false)
        settings.rampFrom = try LoadSettings.rate(
            parsed.value("ramp-from") ?? "0", option: "ramp-from", allowZero: true)
        settings.ramp = try LoadSettings.duration(parsed.value("ramp") ?? "0s", option: "ramp")
        // Refused rather than ignored: alone it changes nothing, and a CI job that asked for a ramp it does not
        // get would measure something else without a word.
        if given("ramp-from") && settings.ramp == .zero {
            throw UsageError("--ramp-from needs --ramp, the time the climb to --rate takes (such as --ramp 30s)")
        }
        settings.duration = try LoadSettings.duration(parsed.value("duration") ?? "10s", option: "duration")
        guard settings.duration > .zero else { throw UsageError("--duration must be longer than 0") }
        if let seed = parsed.value("seed") {
            guard let value = UInt64(seed) else {
                throw UsageError("--seed must be a whole number from 0 to 18446744073709551615, not \"\(seed)\"")
            }
            settings.seed = value
        } else {
            settings.seed = drawnSeed()
        }
        settings.runTag = try parsed.value("run-tag").map(LoadSettings.runTag) ?? runTag()
        settings.batchSize = try parsed.integer("batch-size", in: 1...500) ?? 50
        settings.batchAge = try LoadSettings.duration(parsed.value("batch-age") ?? "2s", option: "batch-age")
        settings.maxInFlight = try parsed.integer("max-in-flight", in: 1...100_000) ?? 256
        settings.timeout = try LoadSettings.duration(parsed.value("timeout") ?? "10s", option: "timeout")
        guard settings.timeout > .zero else { throw UsageError("--timeout must be longer than 0") }
        settings.maxRetries = try parsed.integer("max-retries", in: 0...100) ?? 5
        settings.retryBase = try LoadSettings.duration(parsed.value("retry-base") ?? "250ms", option: "retry-base")
        settings.identified = try LoadSettings.share(parsed.value("identified") ?? "0.5", option: "identified")
        if let key = parsed.value("secret-key") {
            guard !key.isEmpty else { throw UsageError("--secret-key must not be empty") }
            settings.secretKey = try LoadSettings.credential(key, option: "secret-key")
        }
        if let offline = parsed.value("offline") {
            (settings.offlineShare, settings.offlineDuration) = try LoadSettings.offline(offline)
        }
        settings.gzip = !parsed.flag("no-gzip")
        settings.verify = parsed.flag("verify")
        if let token = parsed.value("admin-token") {
            guard !token.isEmpty else { throw UsageError("--admin-token must not be empty") }
            settings.adminToken = try LoadSettings.credential(token, option: "admin-token")
        }
        settings.jsonPath = parsed.value("json")
        settings.thresholds = parsed.allValues("threshold")
        settings.quiet = parsed.flag("quiet")
        settings.drainLimit = try LoadSettings.duration(parsed.value("drain") ?? "30s", option: "drain")
        return settings
    }

    /// Whether `--name` is on the command line (as `--name V` or `--name=V`), not from a variable or default.
    private static func isGiven(_ name: String, in arguments: [String]) -> Bool {
        arguments.contains { $0 == "--\(name)" || $0.hasPrefix("--\(name)=") }
    }

    /// `[a-z0-9][a-z0-9-]{0,62}` (contract §1): the key goes into paths.
    private static func isWorkspaceKey(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...63).contains(bytes.count) else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || (index > 0 && byte == UInt8(ascii: "-"))
        }
    }

    /// A seed from the clock and the process id, printed so that the run can be repeated.
    private static func drawnSeed() -> UInt64 {
        var mixer = SplitMix64(
            seed: UInt64(MonotonicClock.now()) ^ UInt64(UInt32(bitPattern: getpid())) << 32)
        return mixer.next() >> 1
    }

    /// Eight hex digits from the wall clock and the process id: a new tag per run, whatever the seed.
    private static func runTag() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var mixer = SplitMix64(
            seed: UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec) ^ UInt64(UInt32(bitPattern: getpid())))
        let value = mixer.next() & 0xFFFF_FFFF
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }
}
