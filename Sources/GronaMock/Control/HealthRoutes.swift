import Dispatch
import GronaMockHTTP
import GronaMockJSON

/// Health for scripts, CI jobs, compose and orchestrators, none of which need the admin token:
///
/// - `GET /_mock/health/live`: liveness. 200 while the process serves requests; restart it otherwise.
/// - `GET /_mock/health/ready` and `GET /_mock/health`: readiness. Each part is reported (storage, with
///   a committed one-row write; workspaces and the files that failed to load; connections), and the answer
///   is 503 when events cannot be stored, since an SDK's events would then be refused.
enum HealthRoutes {
    static let live = "/_mock/health/live"
    static let ready = "/_mock/health/ready"
    static let health = "/_mock/health"
    static let patterns: Set<String> = [health, live, ready]

    /// A storage probe that has not answered by then counts as a failure: a health check must not hang.
    static let probeTimeout: DispatchTimeInterval = .seconds(2)

    struct Parts: Sendable {
        let events: EventStore
        let registry: WorkspaceRegistry
        let openConnections: @Sendable () -> Int
        let maxConnections: Int
    }

    static func register(on router: inout Router, parts: Parts) {
        let liveBody = Array("{\"status\":\"ok\",\"version\":\(JSONText.quoted(GronaMockVersion.current))}".utf8)
        router.on(.get, live) { _ in noStore(HTTPResponse.json(liveBody)) }
        for pattern in [health, ready] {
            router.on(.get, pattern) { _, responder in
                parts.events.probeStorage { result in
                    responder.send(answer(parts, probe: result.mapError { ProbeFailure("\($0)") }))
                }
                DispatchQueue.global().asyncAfter(deadline: .now() + probeTimeout) {
                    responder.send(answer(parts, probe: .failure("the event writer did not answer within 2 s")))
                }
            }
        }
    }

    private static func answer(_ parts: Parts, probe: Result<Void, ProbeFailure>) -> HTTPResponse {
        let status = parts.events.storageStatus
        var writable = true
        var lastError = status.lastError
        if case .failure(let failure) = probe {
            writable = false
            lastError = failure.message
        }
        let errors = parts.registry.loadErrors.map { error -> JSONValue in
            .object(["file": .string(error.file), "message": .string(error.message)])
        }
        let body: JSONValue = .object([
            "status": .string(writable ? "ok" : "unavailable"),
            "version": .string(GronaMockVersion.current),
            "storage": .object(["writable": .bool(writable), "lastError": lastError.map(JSONValue.string) ?? .null]),
            "workspaces": .object([
                "loaded": .number(JSONNumber(parts.registry.servedCount)), "errors": .array(errors),
            ]),
            "connections": .object([
                "open": .number(JSONNumber(parts.openConnections())),
                "max": .number(JSONNumber(parts.maxConnections)),
            ]),
        ])
        var response = HTTPResponse.json(body.serialized())
        if !writable { response.status = .serviceUnavailable }
        return noStore(response)
    }

    private static func noStore(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    /// A probe's failure as the sentence health shows.
    struct ProbeFailure: Error, ExpressibleByStringLiteral {
        let message: String
        init(stringLiteral message: String) { self.message = message }
        init(_ message: String) { self.message = message }
    }
}
