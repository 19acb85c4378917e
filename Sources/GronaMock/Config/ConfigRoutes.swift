import GronaMockHTTP
import GronaMockJSON

/// The Grona configuration endpoints (contract §4 and §6). Each configuration answer is told to the engine's
/// event stream (`ServedConfiguration`: the revision, the ETag, the encoding).
enum ConfigRoutes {
    /// The signed configuration: the fault endpoint `config`.
    static let configPattern = "/v1/mobile/workspaces/{workspaceKey}/config"
    /// The key set: no fault endpoint, so never faulted (docs/faults.md).
    static let jwksPattern = "/v1/mobile/workspaces/{workspaceKey}/jwks.json"

    static func register(on router: inout Router, registry: WorkspaceRegistry, maxAge: Int, events: EngineEvents) {
        // Made once: formatting it was a share of every configuration answer.
        let cacheControl = "max-age=\(maxAge)"
        router.on(.get, configPattern) { request in
            try configuration(request, registry: registry, cacheControl: cacheControl, events: events)
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
    }

    /// The signed document: strong ETag, 304 on a match, gzip when accepted (contract §4). A configuration
    /// fault serves a tampered document instead, with its own ETag. The rules of the workspace in the path
    /// are asked once it is known to be served.
    private static func configuration(
        _ request: HTTPRequest, registry: WorkspaceRegistry, cacheControl: String, events: EngineEvents
    ) throws -> HTTPResponse {
        let entry = try lookup(request, registry)
        request.traffic?.note(workspace: entry.workspace.key)
        if let answer = request.faults?.enter(workspace: entry.workspace.key) { return answer }
        var configuration = entry.configuration
        let fault = request.faults?.fault
        if let fault {
            let keys = registry.keys
            configuration = try ConfigFaults.tampered(
                configuration, with: fault,
                signers: entry.workspace.configKeyIDs.compactMap { kid in
                    keys[kid].map { NamedSigningKey(kid: kid, key: $0) }
                })
        }
        request.traffic?.note(.configuration(revision: configuration.revision, tampered: fault != nil))
        let gzip = ContentNegotiation.acceptsGzip(request.headers)
        let etag = gzip ? configuration.gzipETag : configuration.etag
        let notModified = ContentNegotiation.noneMatchHits(request.headers, etag: etag)
        events.publish(
            .configurationServed(
                ServedConfiguration(
                    workspace: entry.workspace.key, revision: configuration.revision, etag: etag,
                    encoding: gzip ? .gzip : .identity, notModified: notModified, tampered: fault != nil)))
        if notModified {
            return HTTPResponse(
                status: .notModified,
                headers: ["ETag": etag, "Cache-Control": cacheControl, "Vary": "Accept-Encoding"])
        }
        var headers: HTTPHeaders = [
            "ETag": etag, "Cache-Control": cacheControl, "Vary": "Accept-Encoding",
            "Content-Type": "application/jose+json",
        ]
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
