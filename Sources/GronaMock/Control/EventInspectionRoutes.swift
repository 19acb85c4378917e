import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform

/// `/_mock/events`: what the SDK sent, for tests and people (contract §8).
enum EventInspectionRoutes {
    static let maxWait: Duration = .seconds(120)

    /// `pool` makes the pieces of streamed exports (the handlers already run on it, off the event loops).
    static func register(on router: inout Router, store: EventStore, waiters: EventWaiters, pool: BlockingPool) {
        router.on(.get, "/_mock/events/export") { request in
            let filter = try EventFilter(parameters: request.queryItems, extra: ["format"])
            let text = request.query("format") ?? EventExport.Format.ndjson.rawValue
            guard let format = EventExport.Format(rawValue: text) else {
                throw HTTPError(.badRequest, code: .invalidQuery, message: "format must be ndjson or csv.")
            }
            let export = try EventExport(storage: store.storage, filter: filter, format: format)
            let stream = HTTPBodyStream(state: export, executor: pool.execute) { export in try export.next() }
            return HTTPResponse.streamed(stream, contentType: format.contentType)
        }
        router.on(.get, "/_mock/events/funnels") { request in
            try onlyParameters(request, ["workspace", "campaignID"])
            guard let workspace = try EventFilter(parameters: request.queryItems, extra: ["campaignID"]).workspace
            else {
                throw HTTPError(
                    .badRequest, code: .invalidQuery, message: "Name the workspace: ?workspace=acme-market.")
            }
            let figures = try store.storage.campaignCounts(workspace: workspace)
            let funnels = EventFunnels.json(figures, workspace: workspace, campaignID: request.query("campaignID"))
            return HTTPResponse.json(funnels.serialized())
        }
        router.on(.get, "/_mock/events") { request in
            let filter = try EventFilter(parameters: request.queryItems, extra: EventPage.parameterNames)
            let page = try EventPage(parameters: request.queryItems)
            let (events, next) = try store.events(filter, page: page)
            return listing(events, next)
        }
        router.on(.get, "/_mock/events/rejected") { request in
            try onlyParameters(request, EventPage.parameterNames.union(["workspace"]))
            let filter = try EventFilter(parameters: request.queryItems, extra: EventPage.parameterNames)
            let page = try EventPage(parameters: request.queryItems)
            let (events, next) = try store.rejected(workspace: filter.workspace, page: page)
            return listing(events, next)
        }
        router.on(.get, "/_mock/events/summary") { request in
            try onlyParameters(request, ["workspace"])
            guard let workspace = try EventFilter(parameters: request.queryItems).workspace else {
                throw HTTPError(
                    .badRequest, code: .invalidQuery, message: "Name the workspace: ?workspace=acme-market.")
            }
            let summary = try store.summary(workspace: workspace)
            return HTTPResponse.json(summary.serialized())
        }
        router.on(.get, "/_mock/events/wait") { request, responder in
            responder.sendingErrors {
                let filter = try EventFilter(parameters: request.queryItems, extra: ["count", "timeoutMs"])
                guard let count = request.query("count").flatMap(Int.init), count >= 1 else {
                    throw HTTPError(
                        .badRequest, code: .invalidQuery, message: "count must be a whole number of at least 1.")
                }
                let timeout =
                    try request.query("timeoutMs").map { text throws(HTTPError) -> Duration in
                        guard let milliseconds = Int(text), milliseconds >= 0 else {
                            throw HTTPError(
                                .badRequest, code: .invalidQuery,
                                message: "timeoutMs must be milliseconds (0 or more).")
                        }
                        return .milliseconds(milliseconds)
                    } ?? .seconds(10)
                waiters.add(filter: filter, count: count, timeout: min(timeout, maxWait), responder: responder)
            }
        }
        router.on(.delete, "/_mock/events") { request, responder in
            responder.sendingErrors {
                // A misspelt parameter must not widen a delete to every workspace.
                try onlyParameters(request, ["workspace"])
                let workspace = try EventFilter(parameters: request.queryItems).workspace
                guard let writer = store.writer else { throw HTTPError.storageUnavailable }
                writer.submit(
                    .delete(workspaceKey: workspace) { result in
                        switch result {
                        case .success(let deleted): responder.send(HTTPResponse.json("{\"deleted\":\(deleted)}"))
                        case .failure(let error): responder.send(error.httpError.response)
                        }
                    })
            }
        }
    }

    /// Refuses parameters an endpoint does not take, naming the ones it does.
    private static func onlyParameters(_ request: HTTPRequest, _ allowed: Set<String>) throws(HTTPError) {
        for item in request.queryItems where !allowed.contains(item.name) {
            throw HTTPError(
                .badRequest, code: .invalidQuery,
                message:
                    "Unknown parameter \(Quote.text(item.name)); this endpoint takes \(allowed.sorted().joined(separator: ", "))."
            )
        }
    }

    private static func listing(_ events: [JSONValue], _ next: Int64?) -> HTTPResponse {
        let body: JSONObject = [
            "events": .array(events), "nextCursor": next.map { .string(String($0)) } ?? .null,
        ]
        return HTTPResponse.json(JSONValue.object(body).serialized())
    }
}
