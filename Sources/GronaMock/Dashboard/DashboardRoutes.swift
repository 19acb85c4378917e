import GronaMockHTTP

/// `/_mock/ui`: the dashboard's page and its files, from memory on the event loop (docs/dashboard.md).
///
/// They hold no data, so they are public (the page must load to ask for the token); every call the page makes
/// goes to the `/_mock` API with the token as a bearer header. The headers shut out what the page does not
/// need: no inline script or style, no other origin, no framing, no form posting, no referrer, no sniffing.
/// No CORS header is ever sent, so no other origin can read the API through a visitor's browser.
enum DashboardRoutes {
    static let page = "/_mock/ui"
    static let asset = "/_mock/ui/{asset}"
    static let patterns: Set<String> = [page, asset]

    /// The Content-Security-Policy (CSP Level 3): scripts and styles from this origin only, which rules out
    /// inline ones and `eval`; connections to this origin only; no base, forms or frame ancestors.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// `tokenRequired`: whether the server has an admin token, which the page reads from `server.json` to ask
    /// for the token before its first call rather than after a refusal. It is no secret: a 401 says as much.
    static func register(on router: inout Router, tokenRequired: Bool) {
        var files = DashboardAssets.files
        files["server.json"] = DashboardAssets.File(
            bytes: Array("{\"adminToken\":\(tokenRequired)}".utf8), contentType: "application/json")
        files["vocabulary.json"] = DashboardAssets.File(
            bytes: DashboardVocabulary.json.serialized(), contentType: "application/json")
        router.addHeaders(securityHeaders, toRefusalsAt: page)
        router.on(.get, page) { [files] request in
            guard let file = files["index.html"] else { throw notFound(request.path) }
            return response(file)
        }
        router.on(.get, asset) { [files] request in
            guard let name = request.pathParameters["asset"], name != "index.html", let file = files[name] else {
                throw notFound(request.path)
            }
            return response(file)
        }
    }

    /// What every answer of these routes carries, a refusal too: an unknown file's 404 echoes its path, and
    /// must be as inert in a browser as the files are.
    static let securityHeaders: [String: String] = [
        "Content-Security-Policy": contentSecurityPolicy, "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer", "Cross-Origin-Opener-Policy": "same-origin",
    ]

    private static func notFound(_ path: String) -> HTTPError {
        let plain = HTTPError.notFound(path)
        return HTTPError(plain.status, code: plain.code, message: plain.message, headers: securityHeaders)
    }

    private static func response(_ file: DashboardAssets.File) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": file.contentType, "Cache-Control": "no-cache"]
        for (name, value) in securityHeaders.sorted(by: { $0.key < $1.key }) { headers.set(name, value) }
        return HTTPResponse(status: .ok, headers: headers, body: file.bytes)
    }
}
