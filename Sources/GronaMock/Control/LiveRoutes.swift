import GronaMockHTTP
import GronaMockPlatform

/// `GET /_mock/events/live`: the events as they are committed, as Server-Sent Events, for the dashboard
/// (docs/dashboard.md). Behind the admin token like all of `/_mock`, but not on the blocking pool: a stream
/// lasts as long as its viewer, and ten of them would hold ten pool threads. The handler only parses and
/// joins; the pieces are made on the viewers' thread (`LiveViewers`).
enum LiveRoutes {
    static let pattern = "/_mock/events/live"
    static let parameters: Set<String> = ["workspace", "type", "install", "campaign", "after"]

    static func register(on router: inout Router, engine: GronaMockEngine) {
        router.on(.get, pattern) { request in
            for item in request.queryItems where !parameters.contains(item.name) {
                throw HTTPError(
                    .badRequest, code: .invalidQuery,
                    message:
                        "Unknown parameter \(Quote.text(item.name)); this endpoint takes \(parameters.sorted().joined(separator: ", "))."
                )
            }
            if let workspace = request.query("workspace"), !IdentifierKind.workspaceKey.isValid(workspace) {
                throw InvalidQuery(InvalidIdentifier(kind: .workspaceKey, text: workspace, field: "?workspace"))
            }
            let filter = LiveFilter(
                workspace: request.query("workspace"), type: request.query("type"),
                install: request.query("install"), campaign: request.query("campaign"))
            let watch = try engine.watchLive(filter, after: try startCursor(request))
            // A viewer that closes its side has left (a browser leaving the page): its place is freed at once.
            let stream = HTTPBodyStream(state: watch.viewer, executor: watch.executor, stopsWhenClientCloses: true) {
                viewer in viewer.next()
            }
            return HTTPResponse.streamed(
                stream, contentType: "text/event-stream; charset=utf-8",
                headers: ["Cache-Control": "no-store", "X-Accel-Buffering": "no"])
        }
    }

    /// After `Last-Event-ID` (a reconnecting client), else `after=`; nil for neither. Both are checked when
    /// both are given, though the header wins: a bad value is never silently ignored.
    private static func startCursor(_ request: HTTPRequest) throws(HTTPError) -> Int? {
        let header = try request.headers["Last-Event-ID"].map { text throws(HTTPError) in try cursor(text) }
        let after = try request.query("after").map { text throws(HTTPError) in try cursor(text) }
        return header ?? after
    }

    private static func cursor(_ text: String) throws(HTTPError) -> Int {
        guard let cursor = Int(text.trimmingASCIIWhitespace()), cursor >= 0 else {
            throw HTTPError(
                .badRequest, code: .invalidQuery,
                message: "after (or Last-Event-ID) must be the id of an event received: a whole number, 0 or more.")
        }
        return cursor
    }
}
