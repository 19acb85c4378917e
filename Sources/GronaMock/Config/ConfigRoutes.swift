import GronaMockHTTP
import GronaMockJSON

/// The Grona configuration endpoints (contract §4 and §6) and the SDK's one-call setup.
enum ConfigRoutes {
    /// The signed configuration: the fault endpoint `config`.
    static let configPattern = "/v1/mobile/workspaces/{workspaceKey}/config"
    /// The key set: no fault endpoint, so never faulted (docs/faults.md).
    static let jwksPattern = "/v1/mobile/workspaces/{workspaceKey}/jwks.json"

    static func register(on router: inout Router, registry: WorkspaceRegistry, maxAge: Int) {
        router.on(.get, configPattern) { request in
            try configuration(request, registry: registry, maxAge: maxAge)
        }
        router.on(.get, jwksPattern) { request in
            let entry = try lookup(request, registry)
            let keys = registry.keys
            var jwks: [JWK] = []
            for kid in entry.workspace.configKeyIDs + entry.workspace.grantKeyIDs
            where !jwks.contains(where: { $0.kid == kid }) {
                if let key = keys[kid] { jwks.append(JWK(kid: kid, publicKey: key.publicKey)) }
            }
            var response = HTTPResponse.json(JWK.set(jwks))
            response.headers.add("Cache-Control", "max-age=\(maxAge)")
            return response
        }
        router.on(.get, "/_mock/workspaces/{workspaceKey}/sdk-options") { request in
            // The SDK endpoints answer any unknown key with the contract's 404; the control API says what is
            // wrong with a malformed one.
            try IdentifierKind.workspaceKey.validated(request.pathParameters["workspaceKey"] ?? "", given: "the path")
            let entry = try lookup(request, registry)
            return HTTPResponse.json(SDKOptions.document(for: entry.workspace, keys: registry.keys, request: request))
        }
    }

    /// The signed document: strong ETag, 304 on a match, gzip when accepted (contract §4). A configuration
    /// fault serves a tampered document instead, with its own ETag. The rules of the workspace in the path
    /// are asked once it is known to be served.
    private static func configuration(
        _ request: HTTPRequest, registry: WorkspaceRegistry, maxAge: Int
    ) throws -> HTTPResponse {
        let entry = try lookup(request, registry)
        if let answer = request.faults?.enter(workspace: entry.workspace.key) { return answer }
        var configuration = entry.configuration
        if let fault = request.faults?.fault { configuration = try ConfigFaults.tampered(configuration, with: fault) }
        let gzip = ContentNegotiation.acceptsGzip(request.headers)
        let etag = gzip ? configuration.gzipETag : configuration.etag
        var headers: HTTPHeaders = [
            "ETag": etag, "Cache-Control": "max-age=\(maxAge)", "Vary": "Accept-Encoding",
        ]
        if ContentNegotiation.noneMatchHits(request.headers, etag: etag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        headers.add("Content-Type", "application/jose+json")
        if gzip { headers.add("Content-Encoding", "gzip") }
        return HTTPResponse(status: .ok, headers: headers, body: gzip ? configuration.gzipped : configuration.document)
    }

    static func lookup(_ request: HTTPRequest, _ registry: WorkspaceRegistry) throws(HTTPError)
        -> WorkspaceRegistry.Entry
    {
        let key = request.pathParameters["workspaceKey"] ?? ""
        guard let entry = registry.entry(for: key) else { throw HTTPError.unknownWorkspace(key) }
        return entry
    }
}

extension HTTPError {
    /// 404 `unknown_workspace` (contract §4 and §7).
    static func unknownWorkspace(_ key: String) -> HTTPError {
        HTTPError(.notFound, code: .unknownWorkspace, message: "No workspace \(Quote.text(key)) is served here.")
    }
}

/// What an SDK test needs to configure itself from one call: the endpoint URLs, the workspace key, and the
/// key maps exactly as `GronaOptions` takes them (key id → base64 SPKI DER).
enum SDKOptions {
    static func document(for workspace: Workspace, keys: KeyStore, request: HTTPRequest) -> [UInt8] {
        let base = baseURL(request)
        func keyMap(_ kids: [String]) -> JSONValue {
            var map = JSONObject()
            for kid in kids { if let key = keys[kid] { map.set(kid, .string(key.publicKey.spkiBase64)) } }
            return .object(map)
        }
        let document: JSONObject = [
            "workspaceKey": .string(workspace.key),
            "configURL": .string("\(base)/v1/mobile/workspaces/\(workspace.key)/config"),
            "eventsURL": .string("\(base)/v1/mobile/events"),
            "grantsURL": .string("\(base)/v1/mobile/grants"),
            "jwksURL": .string("\(base)/v1/mobile/workspaces/\(workspace.key)/jwks.json"),
            "configKeys": keyMap(workspace.configKeyIDs),
            "grantKeys": keyMap(workspace.grantKeyIDs),
        ]
        return JSONValue.object(document).serialized()
    }

    /// The URL the client reached the server by (its `Host`), so that options work behind a port mapping.
    private static func baseURL(_ request: HTTPRequest) -> String {
        let host = request.headers["Host"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        return "http://\(host)"
    }
}
