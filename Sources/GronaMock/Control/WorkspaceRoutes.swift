import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform

/// `/_mock/workspaces`: change workspaces at run time (contract §8). Every change is validated as a file is
/// and served as a new signed revision.
enum WorkspaceRoutes {
    static let bodyLimit = 8 * 1024 * 1024

    static func register(on router: inout Router, registry: WorkspaceRegistry, events: EventStore, grants: GrantLog) {
        router.on(.get, "/_mock/workspaces") { _ in
            let list: [JSONValue] = registry.workspaceKeys.compactMap { key in
                registry.entry(for: key).map { summary($0, registry) }
            }
            // A file whose edit was refused is not in the list (or is, at its last good revision): its error
            // is here, as health shows it, so that a reload that failed is not invisible.
            let errors: [JSONValue] = registry.loadErrors.map { error in
                .object(["file": .string(error.file), "message": .string(error.message)])
            }
            let body: JSONObject = ["workspaces": .array(list), "errors": .array(errors)]
            return HTTPResponse.json(JSONValue.object(body).serialized())
        }
        router.on(.get, "/_mock/workspaces/{key}") { request in
            let entry = try lookup(request, registry)
            var body = summary(entry, registry).objectValue ?? JSONObject()
            body.set("workspace", redactingSecrets(entry.source))
            return HTTPResponse.json(JSONValue.object(body).serialized())
        }
        router.on(.put, "/_mock/workspaces/{key}", bodyLimit: bodyLimit) { request in
            let key = request.pathParameters["key"] ?? ""
            let document: JSONValue
            do {
                document = try JSONParser().parse(request.body)
            } catch {
                throw HTTPError(.badRequest, code: .malformedJson, message: "The body is not valid JSON: \(error).")
            }
            let allowInvalid = request.query("allowInvalid") == "true"
            return try answer(registry) { () throws(WorkspaceRegistry.ChangeError) in
                try registry.put(key, document: document, allowInvalid: allowInvalid)
            }
        }
        for (action, status) in [("kill", Campaign.Status.killed), ("revive", .live)] {
            router.on(.post, "/_mock/workspaces/{key}/campaigns/{id}/\(action)") { request in
                let key = request.pathParameters["key"] ?? ""
                let campaign = request.pathParameters["id"] ?? ""
                return try answer(registry) { () throws(WorkspaceRegistry.ChangeError) in
                    try registry.setStatus(status, campaign: campaign, in: key)
                }
            }
        }
        router.on(.post, "/_mock/workspaces/{key}/clone") { request in
            let body = try RequestJSON.object(request)
            // A misspelt field (`ttl` for `ttlSeconds`) must not make a clone that never expires.
            for member in body where !["workspaceKey", "secretKey", "ttlSeconds"].contains(member.key) {
                throw HTTPError(
                    .badRequest, code: .invalidRequest,
                    message: "Unknown field \(Quote.text(member.key)); a clone takes workspaceKey, secretKey and "
                        + "ttlSeconds.")
            }
            guard let newKey = body["workspaceKey"]?.stringValue else {
                throw HTTPError(
                    .badRequest, code: .invalidRequest, message: "Name the clone: {\"workspaceKey\": \"run-42\"}.")
            }
            let secret = try optionalString(body["secretKey"], "secretKey")
            let ttl = try ttlSeconds(body["ttlSeconds"])
            var created: (WorkspaceRegistry.Entry, String)?
            _ = try answer(registry) { () throws(WorkspaceRegistry.ChangeError) in
                let result = try registry.clone(
                    request.pathParameters["key"] ?? "", as: newKey, secretKey: secret, ttlSeconds: ttl)
                created = result
                return result.0
            }
            guard let (entry, secretKey) = created else { throw HTTPError.unexpected }
            var object = summary(entry, registry).objectValue ?? JSONObject()
            object.set("secretKey", .string(secretKey))
            var response = HTTPResponse.json(JSONValue.object(object).serialized())
            response.status = .created
            return response
        }
        router.on(.delete, "/_mock/workspaces/{key}") { request, responder in
            let key = request.pathParameters["key"] ?? ""
            do throws(WorkspaceRegistry.ChangeError) {
                try registry.removeClone(key)
            } catch {
                responder.send(error.httpError.response)
                return
            }
            grants.clear(workspace: key)
            // A clone's events go with it.
            guard let writer = events.writer else {
                responder.send(HTTPResponse.json("{\"deleted\":\"\(key)\",\"events\":0}"))
                return
            }
            writer.submit(
                .delete(workspaceKey: key) { result in
                    let count = (try? result.get()) ?? 0
                    responder.send(HTTPResponse.json("{\"deleted\":\(JSONText.quoted(key)),\"events\":\(count)}"))
                })
        }
        router.on(.post, "/_mock/workspaces/{key}/rotate") { request in
            let body = try RequestJSON.object(request, allowEmpty: true)
            guard let role = WorkspaceRegistry.KeyRole(rawValue: body["keys"]?.stringValue ?? "") else {
                throw HTTPError(
                    .badRequest, code: .invalidRequest,
                    message: "Say which keys: {\"keys\": \"config\"} or {\"keys\": \"grant\"}.")
            }
            return try answer(registry) { () throws(WorkspaceRegistry.ChangeError) in
                try registry.rotate(role, in: request.pathParameters["key"] ?? "")
            }
        }
    }

    /// The source with its secret keys masked: a key is shown once, when a clone is made, and never again.
    private static func redactingSecrets(_ source: JSONValue) -> JSONValue {
        guard var root = source.objectValue, let secrets = root["secretKeys"]?.arrayValue else { return source }
        root.set("secretKeys", .array(secrets.map { _ in .string("[redacted]") }))
        return .object(root)
    }

    /// A member that is a string when given: a secret key given as a number is refused, never ignored (which
    /// would hand out a generated one instead of the one the test expects).
    private static func optionalString(_ value: JSONValue?, _ field: String) throws(HTTPError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue else {
            throw HTTPError(.badRequest, code: .invalidRequest, message: "\(field) must be a string.")
        }
        return text
    }

    /// A clone's `ttlSeconds`: absent for none, else a whole number in `cloneTTLSeconds`, checked before any
    /// arithmetic is done with it.
    private static func ttlSeconds(_ value: JSONValue?) throws(HTTPError) -> Int? {
        guard let value else { return nil }
        let range = WorkspaceRegistry.cloneTTLSeconds
        guard let seconds = value.int64Value.flatMap({ Int(exactly: $0) }), range.contains(seconds) else {
            throw HTTPError(
                .badRequest, code: .invalidRequest,
                message:
                    "ttlSeconds must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound) "
                    + "(a day); leave it out for a clone that stays until it is deleted or reset.")
        }
        return seconds
    }

    /// The entry as the control API shows it: key, revision, origin, keys and problems; for a clone with a
    /// time to live, `ttlSeconds`, `expiresInMs` and `expiresAt` (Unix epoch milliseconds by the real clock,
    /// which the expiry follows, not the mock's).
    private static func summary(_ entry: WorkspaceRegistry.Entry, _ registry: WorkspaceRegistry) -> JSONValue {
        var object: JSONObject = [
            "workspaceKey": .string(entry.workspace.key),
            "revision": .number(JSONNumber(entry.configuration.revision)),
            "origin": .string(entry.origin.rawValue),
            "configKeys": .array(entry.workspace.configKeyIDs.map { .string($0) }),
            "grantKeys": .array(entry.workspace.grantKeyIDs.map { .string($0) }),
            "problems": .array(
                entry.problems.map { problem in
                    .object([
                        "severity": .string(problem.severity.rawValue), "path": .string("\(problem.path)"),
                        "reason": .string(problem.reason),
                    ])
                }),
        ]
        if let expiry = registry.expiry(of: entry.workspace.key) {
            let remaining = Int64(expiry.remaining(at: MonotonicClock.now()) / 1_000_000)
            object.set("ttlSeconds", .number(JSONNumber(expiry.ttlSeconds)))
            object.set("expiresInMs", .number(JSONNumber(remaining)))
            object.set("expiresAt", .number(JSONNumber(ServerClock.wallMilliseconds() + remaining)))
        }
        return .object(object)
    }

    private static func lookup(_ request: HTTPRequest, _ registry: WorkspaceRegistry) throws -> WorkspaceRegistry.Entry
    {
        let key = try IdentifierKind.workspaceKey.validated(request.pathParameters["key"] ?? "", given: "the path")
        guard let entry = registry.entry(for: key) else { throw HTTPError.unknownWorkspace(key) }
        return entry
    }

    private static func answer(
        _ registry: WorkspaceRegistry, _ change: () throws(WorkspaceRegistry.ChangeError) -> WorkspaceRegistry.Entry
    ) throws(HTTPError) -> HTTPResponse {
        do {
            return HTTPResponse.json(summary(try change(), registry).serialized())
        } catch {
            throw error.httpError
        }
    }

}

/// `POST /_mock/reset`: events, faults, clock and run-time workspace changes back to the files.
///
/// With `?workspace=KEY`, only what one test run leaves behind on a shared server: that workspace's events
/// and rejected events, its fault rules (rules without a workspace apply to all and stay), its run-time
/// changes (a clone is removed) and its grant log. The clock is one per server, so it is never reset per
/// workspace (docs/workspaces.md says why).
enum ResetRoutes {
    static func register(
        on router: inout Router, registry: WorkspaceRegistry, events: EventStore, faults: FaultEngine,
        clock: ServerClock,
        grants: GrantLog
    ) {
        let runs = RunState(events: events, faults: faults, grants: grants)
        // A clone whose time to live has passed goes as a reset of its workspace would take it: its events,
        // its fault rules and its grants with it.
        // The registry keeps this handler: it must not capture the registry itself.
        let logger = registry.logger
        registry.onChange { change in
            guard change.cause == .expired else { return }
            let key = change.workspaceKey
            runs.clear(key) { result in
                if case .failure(let error) = result {
                    logger.warning(
                        "the events of an expired clone were not deleted", [("workspace", key), ("error", "\(error)")])
                }
            }
        }
        router.on(.post, "/_mock/reset") { request, responder in
            responder.sendingErrors {
                if let key = try workspaceParameter(request) {
                    // Throws before anything is cleared when the workspace is unknown.
                    let served = try registry.reset(key)
                    runs.clear(key) { result in
                        switch result {
                        case .success(let cleared):
                            var body: JSONObject = ["reset": .bool(true), "workspaceKey": .string(key)]
                            body.set("served", .bool(served != nil))
                            if let served { body.set("revision", .number(JSONNumber(served.configuration.revision))) }
                            body.set("events", .number(JSONNumber(cleared.events)))
                            body.set("faults", .number(JSONNumber(cleared.faults)))
                            responder.send(HTTPResponse.json(JSONValue.object(body).serialized()))
                        case .failure(let error):
                            responder.send(error.httpError.response)
                        }
                    }
                    return
                }
                try faults.clear()
                clock.reset()
                // The other instances on the same database, if any, take the clock and the workspaces too.
                clock.published(version: try registry.shared.publish(clock: clock.setting))
                grants.clear()
                registry.reset()
                guard let writer = events.writer else {
                    responder.send(HTTPResponse.json("{\"reset\":true}"))
                    return
                }
                writer.submit(
                    .delete(workspaceKey: nil) { result in
                        switch result {
                        case .success: responder.send(HTTPResponse.json("{\"reset\":true}"))
                        case .failure: responder.send(HTTPError.storageUnavailable.response)
                        }
                    })
            }
        }
    }

    /// The workspace a reset is limited to, or nil for everything. Any other parameter is refused: a misspelt
    /// `workspace` must not widen a reset to every test run on the server.
    private static func workspaceParameter(_ request: HTTPRequest) throws(InvalidQuery) -> String? {
        var key: String?
        for item in request.queryItems {
            guard item.name == "workspace" else {
                throw InvalidQuery("Unknown parameter \(Quote.text(item.name)); this endpoint takes workspace.")
            }
            guard key == nil else { throw InvalidQuery("Name one workspace: workspace is given twice.") }
            guard !item.value.isEmpty else {
                throw InvalidQuery("Name the workspace, ?workspace=run-42, or leave it out to reset everything.")
            }
            guard IdentifierKind.workspaceKey.isValid(item.value) else {
                throw InvalidQuery(InvalidIdentifier(kind: .workspaceKey, text: item.value, field: "?workspace"))
            }
            key = item.value
        }
        return key
    }
}

/// What a test run leaves on a shared server besides its workspace: its fault rules, its grant log and its
/// stored events. Cleared together when one workspace is reset.
struct RunState: Sendable {
    let events: EventStore
    let faults: FaultEngine
    let grants: GrantLog

    struct Cleared: Sendable {
        var faults: Int
        var events: Int
    }

    /// Clears `key`'s run state; `completion` runs once its events (and rejected events) are deleted.
    func clear(_ key: String, completion: @escaping @Sendable (Result<Cleared, StorageError>) -> Void) {
        let removedFaults: Int
        do {
            removedFaults = try faults.clear(workspace: key)
        } catch {
            return completion(.failure(error))
        }
        grants.clear(workspace: key)
        guard let writer = events.writer else { return completion(.success(Cleared(faults: removedFaults, events: 0))) }
        writer.submit(
            .delete(workspaceKey: key) { result in
                completion(result.map { Cleared(faults: removedFaults, events: $0) })
            })
    }
}
