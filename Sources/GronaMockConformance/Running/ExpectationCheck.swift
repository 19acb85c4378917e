import GronaMock
import GronaMockJSON

/// Checks expectations against what one test's SDK sent: the requests heard (`TestTraffic`) and the events
/// stored in its workspace. Each failed expectation becomes an `Explanation` with what was expected, what was
/// observed and the requests or events that show it.
struct ExpectationCheck {
    let traffic: TestTraffic
    let engine: GronaMockEngine
    let workspace: String

    /// The most events a check reads; a scenario's SDK sends a few dozen.
    static let maxEvents = 20_000

    func check(_ expectation: Expectation, place: String) -> Explanation? {
        let startMs = traffic.startMs
        func failure(_ expected: String, _ observed: String, _ evidence: [String]) -> Explanation {
            Explanation(place: place, expected: expected, observed: observed, why: expectation.why, evidence: evidence)
        }
        switch expectation.kind {
        case .events(let matcher, let count):
            let events: [JSONValue]
            do {
                events = try storedEvents()
            } catch {
                return failure("events matching \(matcher.described)", "the store could not be read: \(error)", [])
            }
            let matching = events.filter { matcher.accepts($0, startMs: startMs) }
            guard !count.contains(matching.count) else { return nil }
            return failure(
                "\(count) stored event(s) matching \(matcher.described)", "\(matching.count)",
                (matching.isEmpty ? events : matching).map(Self.eventLine) + ["requests:"]
                    + traffic.requests.map(\.line))
        case .requests(let matcher, let count, let window, let spacing):
            let requests = traffic.requests.filter { request in
                matcher.accepts(request.view, startMs: startMs) && (window.map { $0.contains(request.at) } ?? true)
            }
            let within = window.map { " between +\($0.lowerBound) ms and +\($0.upperBound) ms" } ?? ""
            if !count.contains(requests.count) {
                return failure(
                    "\(count) request(s) matching \(matcher.described)\(within)", "\(requests.count)",
                    traffic.requests.map(\.line))
            }
            for (index, gap) in spacing.enumerated() where index + 1 < requests.count {
                let actual = requests[index + 1].at - requests[index].at
                if actual < gap {
                    return failure(
                        "request \(index + 2) matching \(matcher.described) at least \(gap) ms after request \(index + 1)",
                        "\(actual) ms after it", requests.map(\.line))
                }
            }
            return nil
        case .order(let matchers):
            let events: [JSONValue]
            do {
                events = try storedEvents()
            } catch {
                return failure("events in order", "the store could not be read: \(error)", [])
            }
            var last = -1
            for matcher in matchers {
                guard let position = events.firstIndex(where: { matcher.accepts($0, startMs: startMs) }) else {
                    return failure(
                        "an event matching \(matcher.described) (in the order \(matchers.map(\.described).joined(separator: " < ")))",
                        "none", events.map(Self.eventLine))
                }
                guard position > last else {
                    return failure(
                        "the first events matching \(matchers.map(\.described).joined(separator: " < ")) in that order",
                        "\(matcher.described) arrived earlier", events.map(Self.eventLine))
                }
                last = position
            }
            return nil
        case .duplicates(let count):
            let answered = traffic.requests.filter { $0.answered.endpoint == .events && $0.answered.status == 200 }
            let total = answered.compactMap { $0.view["duplicates"]?.int64Value }.reduce(0, +)
            guard !count.contains(Int(total)) else { return nil }
            return failure("\(count) duplicate event(s) in batches answered 200", "\(total)", answered.map(\.line))
        case .rejected(let count):
            let batches = traffic.requests.filter { $0.answered.endpoint == .events && $0.answered.status == 200 }
            let total = batches.compactMap { $0.view["rejected"]?.int64Value }.reduce(0, +)
            guard !count.contains(Int(total)) else { return nil }
            var evidence = batches.map(\.line)
            if let rejected = try? engine.rejectedEvents(workspace: workspace, page: EventPage()).events {
                evidence += rejected.map { "rejected: \($0)" }
            }
            return failure("\(count) event(s) refused one by one", "\(total)", evidence)
        case .noViolations(let except):
            let report: ViolationReport
            do {
                report = try engine.violations(workspace)
            } catch {
                return failure("no contract violations", "the check could not run: \(error)", [])
            }
            let found = report.violations.filter { !except.contains($0.rule.rawValue) }
            guard !found.isEmpty else { return nil }
            let shown = except.isEmpty ? "" : " but \(except.sorted().joined(separator: ", "))"
            return failure(
                "no contract violations\(shown) (docs/violations.md)", "\(found.count)",
                found.map { "\($0.rule.rawValue): \($0.message) \($0.eventIDs)" })
        }
    }

    /// The workspace's stored events, in the order they were stored.
    func storedEvents() throws -> [JSONValue] {
        var filter = EventFilter()
        filter.workspace = workspace
        var page = EventPage()
        page.limit = EventPage.maxLimit
        var events: [JSONValue] = []
        while events.count < Self.maxEvents {
            let listing = try engine.events(filter, page: page)
            events += listing.events
            guard let next = listing.nextCursor else { break }
            page.cursor = next
        }
        return events
    }

    /// One stored event for evidence: `#12 exposure home-hero/spring home_top visit v-1 t+1000 id e-7`.
    static func eventLine(_ event: JSONValue) -> String {
        func field(_ name: String) -> String? {
            guard let value = event[name], !value.isNull else { return nil }
            return value.stringValue ?? value.description
        }
        var parts = ["#\(field("sequence") ?? "?")", field("type") ?? "?"]
        if let campaign = field("campaignID") { parts.append(campaign + (field("variantID").map { "/" + $0 } ?? "")) }
        for name in ["arm", "placement", "key", "visitID", "customerID", "preview", "demo", "configRevision"] {
            if let value = field(name) { parts.append("\(name)=\(value)") }
        }
        parts.append("timestamp=\(field("timestamp") ?? "?")")
        parts.append("eventID=\(field("eventID") ?? "?")")
        return parts.joined(separator: " ")
    }
}
