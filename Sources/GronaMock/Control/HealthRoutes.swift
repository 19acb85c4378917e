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

    static func register(on router: inout Router, engine: GronaMockEngine) {
        router.on(.get, live) { _ in
            let version = engine.liveness()
            return noStore(HTTPResponse.json("{\"status\":\"ok\",\"version\":\(JSONText.quoted(version))}"))
        }
        for pattern in [health, ready] {
            router.on(.get, pattern) { _, responder in
                engine.readiness { report in
                    var response = HTTPResponse.json(report.json.serialized())
                    if !report.writable { response.status = .serviceUnavailable }
                    responder.send(noStore(response))
                }
            }
        }
    }

    private static func noStore(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.add("Cache-Control", "no-store")
        return response
    }
}
