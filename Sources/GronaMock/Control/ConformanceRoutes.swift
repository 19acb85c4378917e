import GronaMockHTTP
import GronaMockJSON

/// `GET /_mock/conformance`: the last conformance run on this server (`grona-mock conformance`, docs/conformance.md),
/// for the dashboard's Conformance view: `{"run": report}`, or `{"run": null}` when none ran.
enum ConformanceRoutes {
    static func register(on router: inout Router, engine: GronaMockEngine) {
        router.on(.get, "/_mock/conformance") { _ in
            let body: JSONValue = ["run": engine.conformanceRun() ?? .null]
            return HTTPResponse.json(body.serialized())
        }
    }
}
