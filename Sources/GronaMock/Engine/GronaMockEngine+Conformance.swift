import GronaMockJSON

extension GronaMockEngine {
    /// Keeps the report of a conformance run (`grona-mock conformance`: its areas, tests and each failure's
    /// evidence), replacing the last one; the runner records it as each test ends, so the dashboard shows a
    /// run in progress too. The engine does not read it: it is the runner's JSON report, kept for the view.
    package func recordConformanceRun(_ report: JSONValue) {
        called()
        conformance.withLock { $0 = report }
    }

    /// The last conformance run's report; nil when none ran on this engine.
    package func conformanceRun() -> JSONValue? {
        called()
        return conformance.withLock { $0 }
    }
}
