import GronaMockHTTP
import GronaMockJSON

/// `GET /_mock/events/violations?workspace=…`: every breach of the SDK's side of the contract in the stored
/// event stream, with the rule, the events involved and a sentence (contract §8). The rules are in
/// `ViolationsChecker`; docs/violations.md lists them, and how the check reads the stream (`ViolationScan`,
/// one visit at a time) and pages.
enum ViolationRoutes {
    /// `kills` hears of every workspace change from the registry itself, so it is made (and listening) before
    /// the first file is loaded.
    static func register(
        on router: inout Router, store: EventStore, registry: WorkspaceRegistry, grants: GrantLog,
        kills: ViolationsKillLog
    ) {
        router.on(.get, "/_mock/events/violations") { request in
            let query = try ViolationQuery(parameters: request.queryItems)
            guard let key = request.query("workspace"), !key.isEmpty else {
                throw HTTPError(
                    .badRequest, code: .invalidQuery, message: "Name the workspace: ?workspace=acme-market.")
            }
            guard IdentifierKind.workspaceKey.isValid(key) else {
                throw InvalidQuery(InvalidIdentifier(kind: .workspaceKey, text: key, field: "?workspace"))
            }
            guard let entry = registry.entry(for: key) else { throw HTTPError.unknownWorkspace(key) }
            let checker = ViolationsChecker(workspace: entry.workspace, kills: kills.intervals(for: key)) {
                customerID, campaignID, variantID in
                grants.wasIssued(
                    workspace: key, customerID: customerID, campaignID: campaignID, variantID: variantID)
            }
            // The events stored when the check began (or when its first page did): under steady traffic the
            // scan would otherwise chase new events for ever, and pages would disagree.
            let last = try store.lastSequence()
            let outcome = try ViolationScan(storage: store.storage, workspace: key, query: query).run(
                checker, throughSequence: last)
            return HTTPResponse.json(answer(outcome, query, key).serialized())
        }
    }

    /// The answer's JSON: the shape of issue 6 unpaged (every violation, by first event), `nextCursor` added
    /// when paged, counts per rule for a summary.
    private static func answer(_ outcome: ViolationScan.Outcome, _ query: ViolationQuery, _ key: String) -> JSONValue {
        let checked = JSONValue.number(JSONNumber(Int64(outcome.checkedEvents)))
        if query.summary {
            var counts = JSONObject()
            for rule in ViolationRule.allCases {
                counts.set(rule.rawValue, .number(JSONNumber(Int64(outcome.counts[rule] ?? 0))))
            }
            let total = outcome.counts.values.reduce(0, +)
            return .object([
                "workspaceKey": .string(key), "counts": .object(counts), "total": .number(JSONNumber(Int64(total))),
                "checkedEvents": checked,
            ])
        }
        guard query.limit != nil else {
            let sorted = outcome.violations.sorted {
                ($0.events.first ?? 0, $0.rule) < ($1.events.first ?? 0, $1.rule)
            }
            return .object([
                "workspaceKey": .string(key), "violations": .array(sorted.map(\.json)), "checkedEvents": checked,
            ])
        }
        return .object([
            "workspaceKey": .string(key), "violations": .array(outcome.violations.map(\.json)),
            "checkedEvents": checked, "nextCursor": outcome.next.map { .string($0.text) } ?? .null,
        ])
    }
}
