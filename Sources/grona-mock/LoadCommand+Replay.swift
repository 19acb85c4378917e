import GronaMockLoad

/// `--replay FILE [--speed X] [--skip-bad]`: the events of an NDJSON file (a `grona-mock events export`, or a
/// capture) sent again as their installs sent them, instead of a simulated fleet (`ReplayPlan`).
extension LoadCommand {
    static let replaySpecs: [OptionSpec] = [
        .value("replay", "FILE", help: "Send FILE's events (NDJSON, an events export) as their installs did."),
        .value("speed", "X", help: "With --replay: the gaps between events divided by X (default 1)."),
        .flag("skip-bad", help: "With --replay: skip lines that are not events (else nothing is sent)."),
    ]

    /// `settings` with the replay the options ask for: the file read through once (`ReplayPlan`), its
    /// installs the run's. Unchanged without `--replay`.
    static func replayed(_ settings: LoadSettings, _ parsed: ParsedOptions) throws(UsageError) -> LoadSettings {
        guard let path = parsed.value("replay") else {
            for option in ["speed", "skip-bad"] where parsed.given.contains(option) || parsed.flag(option) {
                throw UsageError("--\(option) goes with --replay FILE")
            }
            return settings
        }
        guard settings.shard == nil else { throw UsageError("--replay sends one file's events: it takes no --shard") }
        // The file gives the installs and the pace: a fleet's shape given with it would be silently ignored.
        for option in ["installs", "rate", "ramp", "ramp-from", "duration", "offline", "identified"]
        where parsed.given.contains(option) {
            throw UsageError("--\(option) does not apply to --replay: the file gives the installs and the pace")
        }
        var speed = 1.0
        do {
            if let text = parsed.value("speed") { speed = try ReplayPlan.speed(text) }
        } catch {
            throw UsageError(error.description)
        }
        let plan: ReplayPlan
        do {
            plan = try ReplayPlan(path: path, speed: speed)
        } catch {
            throw UsageError("--replay: \(error)")
        }
        var settings = settings
        settings.replay = plan
        settings.installs = plan.installIDs.count
        return settings
    }

    /// Why the replay sends nothing, or nil: lines that are not events (unless `--skip-bad`), or no event at all.
    static func replayRefusal(_ settings: LoadSettings, skipBad: Bool) -> String? {
        guard let plan = settings.replay else { return nil }
        if plan.badLines > 0 && !skipBad {
            return "--replay \(plan.path): \(plan.badLines) line\(plan.badLines == 1 ? " is" : "s are") not an "
                + "event, so nothing was sent (--skip-bad sends the others):\n  "
                + plan.sampleBadLines.joined(separator: "\n  ")
        }
        guard plan.events > 0 else { return "--replay \(plan.path) holds no event" }
        return nil
    }

    /// The start line of a replay.
    static func replayStartLine(_ settings: LoadSettings, _ plan: ReplayPlan) -> String {
        "grona-mock load: replaying \(plan.events) events of \(plan.installIDs.count) installs from \(plan.path) "
            + "at speed \(rate(plan.speed)) (about \(clock(.milliseconds(Int64(plan.durationSeconds * 1000))))) "
            + "against \(settings.url) (workspace \(settings.workspace), run \(settings.runTag))"
            + (plan.badLines > 0 ? "; \(plan.badLines) bad lines skipped" : "")
    }
}
