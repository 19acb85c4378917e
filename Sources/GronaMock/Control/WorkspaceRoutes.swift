import GronaMockHTTP
import GronaMockJSON

/// `/_mock/workspaces`: change workspaces at run time (contract §8). Each route parses its request, calls one
/// engine operation and encodes what it returns.
enum WorkspaceRoutes {
    static let bodyLimit = 8 * 1024 * 1024

    static func register(on router: inout Router, engine: GronaMockEngine) {
        router.on(.get, "/_mock/workspaces") { _ in
            HTTPResponse.json(engine.workspaceList().json.serialized())
        }
        router.on(.get, "/_mock/workspaces/{key}") { request in
            HTTPResponse.json(JSONValue.object(try engine.workspace(key(request)).json).serialized())
        }
        router.on(.put, "/_mock/workspaces/{key}", bodyLimit: bodyLimit) { request in
            let document: JSONValue
            do {
                document = try JSONParser().parse(request.body)
            } catch {
                throw HTTPError(.badRequest, code: .malformedJson, message: "The body is not valid JSON: \(error).")
            }
            let allowInvalid = request.query("allowInvalid") == "true"
            return summary(try engine.putWorkspace(key(request), document: document, allowInvalid: allowInvalid))
        }
        for (action, status) in [("kill", Campaign.Status.killed), ("revive", .live)] {
            router.on(.post, "/_mock/workspaces/{key}/campaigns/{id}/\(action)") { request in
                summary(
                    try engine.setCampaignStatus(
                        status, campaign: request.pathParameters["id"] ?? "", workspace: key(request)))
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
            let clone = try engine.cloneWorkspace(
                key(request), as: newKey, secretKey: try optionalString(body["secretKey"], "secretKey"),
                ttlSeconds: try ttlSeconds(body["ttlSeconds"]))
            var object = clone.summary.json
            object.set("secretKey", .string(clone.secretKey))
            return HTTPResponse.json(JSONValue.object(object).serialized(), status: .created)
        }
        router.on(.delete, "/_mock/workspaces/{key}") { request, responder in
            responder.sendingErrors {
                let key = key(request)
                try engine.deleteClone(key) { result in
                    switch result {
                    case .success(let count):
                        responder.send(
                            HTTPResponse.json("{\"deleted\":\(JSONText.quoted(key)),\"events\":\(count)}"))
                    case .failure(let error):
                        responder.send(error.httpError.response)
                    }
                }
            }
        }
        router.on(.post, "/_mock/workspaces/{key}/rotate") { request in
            let body = try RequestJSON.object(request, allowEmpty: true)
            guard let role = WorkspaceRegistry.KeyRole(rawValue: body["keys"]?.stringValue ?? "") else {
                throw HTTPError(
                    .badRequest, code: .invalidRequest,
                    message: "Say which keys: {\"keys\": \"config\"} or {\"keys\": \"grant\"}.")
            }
            return summary(try engine.rotateKeys(role, workspace: key(request)))
        }
        router.on(.get, "/_mock/workspaces/{workspaceKey}/sdk-options") { request in
            let key = request.pathParameters["workspaceKey"] ?? ""
            return HTTPResponse.json(try engine.sdkOptions(key, baseURL: baseURL(request)).json.serialized())
        }
    }

    /// The URL the client reached the server by (its `Host`), so that the options work behind a port mapping.
    private static func baseURL(_ request: HTTPRequest) -> String {
        let host = request.headers["Host"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        return "http://\(host)"
    }

    private static func key(_ request: HTTPRequest) -> String { request.pathParameters["key"] ?? "" }

    private static func summary(_ summary: WorkspaceSummary) -> HTTPResponse {
        HTTPResponse.json(JSONValue.object(summary.json).serialized())
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
}

/// `POST /_mock/reset`: events, faults, clock and run-time workspace changes back to the files; with
/// `?workspace=KEY`, only what one test run leaves behind on a shared server (`GronaMockEngine.reset`).
enum ResetRoutes {
    static func register(on router: inout Router, engine: GronaMockEngine) {
        router.on(.post, "/_mock/reset") { request, responder in
            responder.sendingErrors {
                try engine.reset(workspace: try workspaceParameter(request)) { result in
                    switch result {
                    case .success(let outcome): responder.send(HTTPResponse.json(outcome.json.serialized()))
                    case .failure(let error): responder.send(error.httpError.response)
                    }
                }
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
