import GronaMockHTTP
import GronaMockJSON

/// `GET /_mock/events/violations?workspace=…`: every breach of the SDK's side of the contract in the stored
/// event stream, with the rule, the events involved and a sentence (contract §8). The check is the engine's
/// (`GronaMockEngine.violations`); docs/violations.md lists the rules, and how the check reads the stream and
/// pages.
enum ViolationRoutes {
    static func register(on router: inout Router, engine: GronaMockEngine) {
        router.on(.get, "/_mock/events/violations") { request in
            let query = try ViolationQuery(parameters: request.queryItems)
            guard let key = request.query("workspace"), !key.isEmpty else {
                throw HTTPError(
                    .badRequest, code: .invalidQuery, message: "Name the workspace: ?workspace=acme-market.")
            }
            guard IdentifierKind.workspaceKey.isValid(key) else {
                throw InvalidQuery(InvalidIdentifier(kind: .workspaceKey, text: key, field: "?workspace"))
            }
            return HTTPResponse.json(try engine.violations(key, query: query).json(query).serialized())
        }
    }
}
