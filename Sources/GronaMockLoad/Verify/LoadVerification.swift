/// What `--verify` found (the shape agreed in load-spec.md; the report helper's copy in Report/ is the same
/// type, and the coordinator keeps one of the two at merge).
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
    /// At most 10 "rule: message".
    package var sampleViolations: [String]

    package init(
        acknowledged: Int = 0, stored: Int = 0, lost: Int = 0, unacknowledged: Int = 0, doubled: Int = 0,
        violations: Int = 0, sampleLost: [String] = [], sampleViolations: [String] = []
    ) {
        self.acknowledged = acknowledged
        self.stored = stored
        self.lost = lost
        self.unacknowledged = unacknowledged
        self.doubled = doubled
        self.violations = violations
        self.sampleLost = sampleLost
        self.sampleViolations = sampleViolations
    }

    package var passed: Bool { lost == 0 && unacknowledged == 0 && doubled == 0 && violations == 0 }
}
