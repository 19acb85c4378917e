import GronaMockHTTP
import GronaMockPlatform

/// `GET /_mock/events/live`: the events as they are committed, as Server-Sent Events, for the dashboard
/// (docs/dashboard.md). Behind the admin token like all of `/_mock`, but not on the blocking pool: a stream
/// lasts as long as its viewer, and ten of them would hold ten pool threads. The handler only parses and
/// joins; the pieces are made on the viewers' thread (`LiveViewers`).
enum LiveRoutes {
    static let pattern = "/_mock/events/live"
    static let parameters: Set<String> = ["workspace", "type", "install", "campaign", "after"]

    static func register(on router: inout Router, viewers: LiveViewers) {
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
            let cursor = try startCursor(request, feed: viewers.feed, backlog: viewers.options.backlog)
            guard let (id, progress) = viewers.join(cursor: cursor) else {
                throw HTTPError(
                    .serviceUnavailable, code: .tooManyViewers,
                    message: "\(viewers.options.maxViewers) viewers are watching already; close one and retry.",
                    headers: ["Retry-After": "5"])
            }
            let viewer = LiveViewer(id: id, progress: progress, filter: filter, viewers: viewers)
            // A viewer that closes its side has left (a browser leaving the page): its place is freed at once.
            let stream = HTTPBodyStream(
                state: viewer, executor: { viewers.park(id, $0) }, stopsWhenClientCloses: true
            ) { viewer in viewer.next() }
            return HTTPResponse.streamed(
                stream, contentType: "text/event-stream; charset=utf-8",
                headers: ["Cache-Control": "no-store", "X-Accel-Buffering": "no"])
        }
    }

    /// After `Last-Event-ID` (a reconnecting client), else `after=`; with neither, the last `backlog` events.
    /// A cursor past the newest event (a server restarted since) starts at the newest.
    /// Both are checked when both are given, though the header wins: a bad value is never silently ignored.
    private static func startCursor(_ request: HTTPRequest, feed: LiveFeed, backlog: Int) throws(HTTPError) -> Int {
        let header = try request.headers["Last-Event-ID"].map { text throws(HTTPError) in try cursor(text) }
        let after = try request.query("after").map { text throws(HTTPError) in try cursor(text) }
        guard let cursor = header ?? after else {
            let newest = feed.newestID
            return max(feed.oldestID - 1, newest - min(backlog, newest))
        }
        return min(cursor, feed.newestID)
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

/// One viewer's place in the feed: the state of its stream. When the stream is cancelled (the client left)
/// or ends, the stream drops it, and its slot is freed.
final class LiveViewer: Sendable {
    /// Entries (batches) turned into one piece at most.
    static let entriesPerPiece = 32
    /// A piece ends after the entry that takes it past this many bytes: 32 batches of 512 KiB would make a
    /// 16 MiB piece, held whole by the connection of a viewer that does not read.
    static let pieceBytes = 256 * 1024

    let id: Int
    let progress: LiveViewers.Progress
    let filter: LiveFilter
    let viewers: LiveViewers

    init(id: Int, progress: LiveViewers.Progress, filter: LiveFilter, viewers: LiveViewers) {
        self.id = id
        self.progress = progress
        self.filter = filter
        self.viewers = viewers
    }

    deinit { viewers.leave(id) }

    /// The events past the cursor that pass the filter, a gap first if some were dropped before this viewer
    /// read them, or a heartbeat when nothing was sent for a while; nil ends the stream (the server stops).
    /// Empty when there was news but none for this viewer: the connection asks again and it waits.
    func next() -> [UInt8]? {
        if viewers.isStopping { return nil }
        var cursor = progress.cursor.load(ordering: .acquiring)
        var output: [UInt8] = []
        let (oldest, entries) = viewers.feed.entries(after: cursor, limit: Self.entriesPerPiece)
        if cursor + 1 < oldest {
            LiveEventText.gap(missed: oldest - 1 - cursor, lastMissedID: oldest - 1, to: &output)
            cursor = oldest - 1
        }
        for entry in entries {
            cursor = LiveEventText.append(entry, after: cursor, filter: filter, to: &output)
            if output.count >= Self.pieceBytes { break }
        }
        let now = MonotonicClock.now()
        let lastSent = progress.lastSent.load(ordering: .acquiring)
        let probed = progress.probe.exchange(false, ordering: .acquiringAndReleasing)
        if output.isEmpty
            && (probed || lastSent == 0
                || now >= MonotonicClock.deadline(from: lastSent, after: viewers.options.heartbeat))
        {
            output = LiveEventText.heartbeat
        }
        progress.cursor.store(cursor, ordering: .releasing)
        if !output.isEmpty { progress.lastSent.store(max(1, now), ordering: .releasing) }
        return output
    }
}
