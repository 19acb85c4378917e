import GronaMockHTTP
import GronaMockJSON

/// `POST /v1/mobile/grants` (contract §6): the secret key picks the workspace; the answer lists the
/// customer's grants, each signed afresh.
enum GrantsRoutes {
    /// Bodies are one small JSON object: anything larger is refused before it is read (413).
    static let bodyLimit = 16 * 1024
    static let maxCustomerIDLength = 128

    /// Query parameter names that look like a credential: refused whatever their value, so a key never
    /// travels in a URL (which proxies and access logs keep).
    private static let credentialNames: Set<String> = [
        "key", "apikey", "api_key", "secret", "secretkey", "secret_key", "access_token", "token", "authorization",
    ]

    /// The fault endpoint `grants`.
    static let pattern = "/v1/mobile/grants"

    /// Each answer's grants are told to the engine's event stream (`IssuedGrants`), where the grant log (for the
    /// contract checks), the metrics and the cluster's sharing hear of them.
    static func register(on router: inout Router, registry: WorkspaceRegistry, clock: ServerClock, events: EngineEvents)
    {
        router.on(.post, pattern, bodyLimit: bodyLimit) { request in
            try grants(request, registry: registry, clock: clock, events: events)
        }
    }

    /// A grant fault issues grants that must be refused (expired, for another customer, unsigned…). The rules
    /// of the key's workspace are asked only once the key authenticated, so a refused request never fires them.
    private static func grants(
        _ request: HTTPRequest, registry: WorkspaceRegistry, clock: ServerClock, events: EngineEvents
    ) throws -> HTTPResponse {
        try refuseCredentialsInQuery(request, registry: registry)
        guard let secret = bearerToken(request.headers), let entry = registry.entry(forSecret: secret) else {
            throw HTTPError.unauthorized
        }
        request.traffic?.note(workspace: entry.workspace.key)
        if let answer = request.faults?.enter(workspace: entry.workspace.key) { return answer }
        let fault = request.faults?.fault
        let customerID = try readCustomerID(request)
        let now = clock.nowSeconds()
        var claims = GrantIssuer.claims(for: customerID, in: entry.workspace, now: now)
        if let fault { claims = GrantFaults.apply(fault, to: claims, ttl: entry.workspace.grantTTLSeconds, now: now) }
        let tokens: [String]
        do {
            if fault == .unsigned, let kid = entry.workspace.grantKeyIDs.first {
                tokens = GrantFaults.unsigned(claims, kid: kid)
            } else {
                tokens = try GrantIssuer.sign(claims, workspace: entry.workspace, keys: registry.keys)
            }
        } catch {
            throw HTTPError(.internalServerError, code: .signingFailed, message: "\(error)")
        }
        request.traffic?.note(.grants(customerID: customerID, count: tokens.count))
        // What was handed out, faults included, for the SDK contract checks (the grant log listens).
        events.publish(
            .grantsIssued(
                IssuedGrants(
                    workspace: entry.workspace.key, customerID: customerID,
                    grants: claims.map { ($0.campaignID, $0.variantID) })))
        let body: JSONObject = [
            "grants": .array(tokens.map { .string($0) }), "serverTime": .number(JSONNumber(now)),
        ]
        var response = HTTPResponse.json(JSONValue.object(body).serialized())
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    /// `Authorization: Bearer <key>` (RFC 6750 §2.1), the scheme matched case-insensitively.
    private static func bearerToken(_ headers: HTTPHeaders) -> String? {
        guard let value = headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercasedASCII() == "bearer" else { return nil }
        let token = parts[1].trimmingASCIIWhitespace()
        return token.isEmpty ? nil : String(token)
    }

    private static func refuseCredentialsInQuery(_ request: HTTPRequest, registry: WorkspaceRegistry) throws {
        for item in request.queryItems {
            if credentialNames.contains(item.name.lowercasedASCII()) || registry.entry(forSecret: item.value) != nil {
                throw HTTPError(
                    .badRequest, code: .secretInQuery,
                    message: "Secret keys are accepted only as Authorization: Bearer <key>, never in the URL, "
                        + "which proxies and logs keep. Rotate a key that was sent this way.")
            }
        }
    }

    private static func readCustomerID(_ request: HTTPRequest) throws -> String {
        let contentType = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingASCIIWhitespace()
        guard contentType?.lowercasedASCII() == "application/json" else {
            throw HTTPError(
                .unsupportedMediaType, code: .unsupportedMediaType,
                message: "Send the body as Content-Type: application/json.")
        }
        let body: JSONValue
        do {
            body = try JSONParser().parse(request.body)
        } catch {
            throw HTTPError(.badRequest, code: .malformedJson, message: "The body is not valid JSON: \(error).")
        }
        guard let object = body.objectValue else {
            throw HTTPError(
                .badRequest, code: .malformedJson,
                message: "The body must be a JSON object like {\"customerID\": \"cust_123\"}.")
        }
        guard let value = object["customerID"] else {
            throw invalidCustomerID("customerID is required: {\"customerID\": \"cust_123\"}.")
        }
        guard let customerID = value.stringValue else {
            throw invalidCustomerID("customerID must be a string, not \(value.described).")
        }
        guard !customerID.isEmpty else { throw invalidCustomerID("customerID must not be empty.") }
        guard customerID.utf8.count <= maxCustomerIDLength else {
            throw invalidCustomerID("customerID must be at most \(maxCustomerIDLength) bytes.")
        }
        guard
            customerID.unicodeScalars.allSatisfy({
                $0.value >= 0x20 && $0.value != 0x7F && !(0x80..<0xA0).contains($0.value)
            })
        else {
            throw invalidCustomerID("customerID must not contain control characters.")
        }
        return customerID
    }

    private static func invalidCustomerID(_ message: String) -> HTTPError {
        HTTPError(.badRequest, code: .invalidCustomerId, message: message)
    }
}

extension HTTPError {
    /// 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3): missing and wrong keys look the same.
    static let unauthorized = HTTPError(
        .unauthorized, code: .unauthorized,
        message: "A valid secret key is required as Authorization: Bearer <key>.",
        headers: ["WWW-Authenticate": "Bearer realm=\"grona-mock\""])
}
