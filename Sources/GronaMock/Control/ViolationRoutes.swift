import GronaMockHTTP
import GronaMockJSON

/// `GET /_mock/events/violations?workspace=…`: every breach of the SDK's side of the contract in the stored
/// event stream, with the rule, the events involved and a sentence (contract §8). The rules are in
/// `ViolationsChecker`; docs/violations.md lists them.
enum ViolationRoutes {
    static func register(
        on router: inout Router, store: EventStore, registry: WorkspaceRegistry, grants: GrantLog, clock: ServerClock
    ) {
        let kills = ViolationsKillLog()
        // The run-time changes (`/_mock/workspaces/…`: put, kill, revive, clone, delete, rotate) are observed as
        // they happen, so their kills and revivals are dated to within the request. A change this does not see
        // (a file edit, a reset) is noticed at the next observation and dated leniently (see ViolationsKillLog).
        let changes = RouteGroup { method, pattern in
            method != .get && method != .head && pattern.hasPrefix("/_mock/workspaces/")
        }
        router.use(changes) { request, responder, next in
            kills.observing(next, registry: registry, clock: clock)(request, responder)
        }

        router.on(.get, "/_mock/events/violations") { request in
            for item in request.queryItems where item.name != "workspace" {
                throw HTTPError(
                    .badRequest, code: .invalidQuery,
                    message: "Unknown parameter \(Quote.text(item.name)); this endpoint takes workspace.")
            }
            guard let key = request.query("workspace"), !key.isEmpty else {
                throw HTTPError(
                    .badRequest, code: .invalidQuery, message: "Name the workspace: ?workspace=acme-market.")
            }
            guard let entry = registry.entry(for: key) else { throw HTTPError.unknownWorkspace(key) }
            kills.observe(entry, now: clock.nowMilliseconds())
            var checker = ViolationsChecker(workspace: entry.workspace, kills: kills.intervals(for: key)) {
                customerID, campaignID, variantID in
                grants.wasIssued(
                    workspace: key, customerID: customerID, campaignID: campaignID, variantID: variantID)
            }
            var filter = EventFilter()
            filter.workspace = key
            var page = EventPage()
            page.limit = EventPage.maxLimit
            // The events stored when the check began: under steady traffic the scan would otherwise chase new
            // events for ever and hold a pool thread.
            let last = try store.lastSequence()
            repeat {
                let (events, next) = try store.events(filter, page: page)
                for event in events where (event["sequence"]?.int64Value ?? 0) <= last { checker.add(event) }
                page.cursor = next.flatMap { $0 < last ? $0 : nil }
            } while page.cursor != nil
            let violations = checker.finish()
            let body: JSONObject = [
                "workspaceKey": .string(key), "violations": .array(violations.map(\.json)),
                "checkedEvents": .number(JSONNumber(Int64(checker.checkedEvents))),
            ]
            return HTTPResponse.json(JSONValue.object(body).serialized())
        }
    }
}
