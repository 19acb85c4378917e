/// What `--verify` found after a run against a grona-mock: the events the server stored for the run's installs
/// compared with the events the run got a 200 for, and the contract violations that involve them (contract §7:
/// an acknowledged event is stored exactly once). The engine fills it; the report prints it and the exit status
/// follows `passed` (98 when it is false).
package struct LoadVerification: Sendable, Equatable {
    /// Distinct eventIDs the run got a 200 for.
    package var acknowledged: Int
    /// The run's events the server holds.
    package var stored: Int
    /// Acknowledged, not stored.
    package var lost: Int
    /// Stored, never acknowledged (a batch whose answer was lost and not retried).
    package var unacknowledged: Int
    /// EventIDs stored more than once.
    package var doubled: Int
    /// Contract violations involving the run's events.
    package var violations: Int
    /// At most 10 eventIDs.
    package var sampleLost: [String]
    /// At most 10 eventIDs stored but never acknowledged, so that one can be looked up in the server's log.
    package var sampleUnacknowledged: [String]
    /// At most 10 "rule: message".
    package var sampleViolations: [String]

    /// How many of each sample the report prints, whatever the engine collected.
    package static let sampleLimit = 10

    package var passed: Bool { lost == 0 && unacknowledged == 0 && doubled == 0 && violations == 0 }

    package init(
        acknowledged: Int = 0, stored: Int = 0, lost: Int = 0, unacknowledged: Int = 0, doubled: Int = 0,
        violations: Int = 0, sampleLost: [String] = [], sampleUnacknowledged: [String] = [],
        sampleViolations: [String] = []
    ) {
        self.acknowledged = acknowledged
        self.stored = stored
        self.lost = lost
        self.unacknowledged = unacknowledged
        self.doubled = doubled
        self.violations = violations
        self.sampleLost = sampleLost
        self.sampleUnacknowledged = sampleUnacknowledged
        self.sampleViolations = sampleViolations
    }
}
