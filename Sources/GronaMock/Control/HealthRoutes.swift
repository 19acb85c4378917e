/// `GET /_mock/health`: answers as soon as the server accepts requests, for readiness checks in scripts,
/// CI jobs and container health checks.
enum HealthRoutes {
    static func register(on router: inout Router) {
        let body = Array("{\"status\":\"ok\",\"version\":\(JSONText.quoted(GronaMockVersion.current))}".utf8)
        router.on(.get, "/_mock/health") { _ in
            var response = HTTPResponse.json(body)
            response.headers.add("Cache-Control", "no-store")
            return response
        }
    }
}
