import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform

/// `GET /_mock/events/violations?workspace=…`: every breach of the SDK's side of the contract in the stored
/// event stream, with the rule, the events involved and a sentence (contract §8). The check is the engine's
/// (`GronaMockEngine.violations`); docs/violations.md lists the rules, and how the check reads the stream and
/// pages.
enum ViolationRoutes {
    /// `pool` makes the pieces of an unpaged answer, streamed from its spool (`ViolationSpool`).
    static func register(on router: inout Router, engine: GronaMockEngine, pool: BlockingPool) {
        router.on(.get, "/_mock/events/violations") { request in
            let query = try ViolationQuery(parameters: request.queryItems)
            guard let key = request.query("workspace"), !key.isEmpty else {
                throw HTTPError(
                    .badRequest, code: .invalidQuery, message: "Name the workspace: ?workspace=acme-market.")
            }
            guard IdentifierKind.workspaceKey.isValid(key) else {
                throw InvalidQuery(InvalidIdentifier(kind: .workspaceKey, text: key, field: "?workspace"))
            }
            if query.limit == nil && !query.summary {
                let outcome = try engine.unpagedViolations(key, query: query)
                if outcome.rowsRead >= largeScanRows { ProcessMemory.returnFreeMemory() }
                var body = UnpagedViolationsBody(workspaceKey: key, outcome: outcome)
                // An answer that fitted in memory goes whole, with its Content-Length, as it always has (simple
                // clients read no chunked body); a larger one is streamed from its file.
                guard outcome.spool.isSpilled else {
                    var bytes: [UInt8] = []
                    while let piece = try body.next() { bytes += piece }
                    return HTTPResponse.json(bytes)
                }
                let stream = HTTPBodyStream(state: body, executor: pool.execute) { body in try body.next() }
                return HTTPResponse.streamed(stream, contentType: "application/json")
            }
            let (body, large) = try answer(engine, key, query)
            // The report and its violations are freed by now; the body is one block, which glibc maps apart
            // at this size and unmaps when it is sent.
            if large { ProcessMemory.returnFreeMemory() }
            return HTTPResponse.json(body)
        }
    }

    /// A scan of at least this many rows, or an answer of at least this many bytes, is followed by
    /// `ProcessMemory.returnFreeMemory`: a page of a dense workspace (some 2,300 rows, 280 KB) is not.
    static let largeScanRows = 100_000
    static let largeAnswerBytes = 4 << 20

    /// The body, and whether the work was large enough to give the memory it freed back.
    private static func answer(
        _ engine: GronaMockEngine, _ key: String, _ query: ViolationQuery
    ) throws -> (body: [UInt8], large: Bool) {
        let report = try engine.violations(key, query: query)
        let body = report.encoded(query)
        return (body, report.rowsRead >= largeScanRows || body.count >= largeAnswerBytes)
    }
}

/// The unpaged answer, `{"workspaceKey", "violations": […], "checkedEvents"}` (the bytes `ViolationReport`
/// writes), made a piece at a time from the spool as the client reads.
struct UnpagedViolationsBody: Sendable {
    enum Failure: Error { case unreadableSpool }

    let workspaceKey: String
    let checkedEvents: Int
    let spool: ViolationSpool
    private var position = 0
    private var started = false
    private var ended = false

    init(workspaceKey: String, outcome: ViolationScan.Outcome) {
        self.workspaceKey = workspaceKey
        checkedEvents = outcome.checkedEvents
        spool = outcome.spool
    }

    /// The next piece, nil after the last; throws (cutting the body short) if the spool cannot be read back.
    mutating func next() throws -> [UInt8]? {
        guard !ended else { return nil }
        var output: [UInt8] = []
        if !started {
            started = true
            output.append(contentsOf: #"{"workspaceKey":"#.utf8)
            JSONWriter.writeString(workspaceKey, to: &output)
            output.append(contentsOf: #","violations":["#.utf8)
        }
        guard spool.write(from: &position, to: &output) else { throw Failure.unreadableSpool }
        if position == spool.count {
            ended = true
            output.append(contentsOf: #"],"checkedEvents":"#.utf8)
            JSONWriter.writeNumber(JSONNumber(checkedEvents), to: &output)
            output.append(UInt8(ascii: "}"))
        }
        return output
    }
}
