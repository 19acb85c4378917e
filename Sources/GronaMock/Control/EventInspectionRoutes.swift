import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform

/// `/_mock/events`: what the SDK sent, for tests and people (contract §8). Each route parses its query, calls
/// one engine operation and encodes what it returns.
enum EventInspectionRoutes {
    /// `pool` makes the pieces of streamed exports (the handlers already run on it, off the event loops).
    static func register(on router: inout Router, engine: GronaMockEngine, pool: BlockingPool) {
        router.on(.get, "/_mock/events/export") { request in
            let filter = try EventFilter(parameters: request.queryItems, extra: ["format"])
            let text = request.query("format") ?? EventExport.Format.ndjson.rawValue
            guard let format = EventExport.Format(rawValue: text) else {
                throw HTTPError(.badRequest, code: .invalidQuery, message: "format must be ndjson or csv.")
            }
            let export = try engine.exportEvents(filter, format: format)
            let stream = HTTPBodyStream(state: export, executor: pool.execute) { export in try export.next() }
            return HTTPResponse.streamed(stream, contentType: format.contentType)
        }
        router.on(.get, "/_mock/events/funnels") { request in
            try onlyParameters(request, ["workspace", "campaignID"])
            let workspace = try requiredWorkspace(request, extra: ["campaignID"])
            let funnels = try engine.funnels(workspace: workspace, campaignID: request.query("campaignID"))
            return HTTPResponse.json(funnels.serialized())
        }
        router.on(.get, "/_mock/events") { request in
            let filter = try EventFilter(parameters: request.queryItems, extra: EventPage.parameterNames)
            let page = try EventPage(parameters: request.queryItems)
            return HTTPResponse.json(try engine.events(filter, page: page).json.serialized())
        }
        router.on(.get, "/_mock/events/rejected") { request in
            try onlyParameters(request, EventPage.parameterNames.union(["workspace"]))
            let filter = try EventFilter(parameters: request.queryItems, extra: EventPage.parameterNames)
            let page = try EventPage(parameters: request.queryItems)
            return HTTPResponse.json(
                try engine.rejectedEvents(workspace: filter.workspace, page: page).json.serialized())
        }
        router.on(.get, "/_mock/events/summary") { request in
            try onlyParameters(request, ["workspace"])
            return HTTPResponse.json(try engine.eventSummary(workspace: try requiredWorkspace(request)).serialized())
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
                let ticket = engine.waitForEvents(filter, count: count, timeout: timeout) { outcome in
                    responder.send(HTTPResponse.json(outcome.json.serialized()))
                }
                // A client that goes takes its waiter with it, at once: the connection is freed without waiting
                // for the timeout. The release runs on an event loop: one lock and a removal.
                responder.hold { ticket() }
            }
        }
        router.on(.delete, "/_mock/events") { request, responder in
            responder.sendingErrors {
                // A misspelt parameter must not widen a delete to every workspace.
                try onlyParameters(request, ["workspace"])
                let workspace = try EventFilter(parameters: request.queryItems).workspace
                try engine.deleteEvents(workspace: workspace) { result in
                    switch result {
                    case .success(let deleted): responder.send(HTTPResponse.json("{\"deleted\":\(deleted)}"))
                    case .failure(let error): responder.send(error.httpError.response)
                    }
                }
            }
        }
    }

    /// The `workspace` a per-workspace read needs, checked as a filter is.
    private static func requiredWorkspace(_ request: HTTPRequest, extra: Set<String> = []) throws -> String {
        guard let workspace = try EventFilter(parameters: request.queryItems, extra: extra).workspace else {
            throw HTTPError(.badRequest, code: .invalidQuery, message: "Name the workspace: ?workspace=acme-market.")
        }
        return workspace
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
}
