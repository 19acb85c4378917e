import Foundation
import GronaReferenceHTTP
import GronaReferenceSDK

/// The conformance test service (docs/conformance/service-protocol.md): creates reference SDK clients, runs the
/// harness's commands on them through the SDK's public API, and closes them. Each request is answered once the
/// SDK work it caused has settled, because the handler awaits that work.
public final class ReferenceService: @unchecked Sendable {
    public static let name = "grona-reference-service"
    public static let version = "1.0.0"
    public static let protocolVersion: Int64 = 1
    /// Everything this SDK supports (service protocol, "Capabilities").
    public static let capabilities = [
        "configuration", "bundled-configuration", "components", "decisions", "events", "gzip", "offline",
        "lifecycle", "grants", "preview", "purchase",
    ]
    /// Clients open at once; past it `POST /clients` is answered 503 (a harness that forgets to close them).
    public static let maxClients = 10_000

    public let mutation: Mutation?
    private let transport: any Transport
    private let onShutdown: @Sendable () -> Void
    private let lock = NSLock()
    private var clients: [String: ClientEntry] = [:]
    private var lastID = 0

    /// `onShutdown` runs after `DELETE /` has been answered.
    public init(
        mutation: Mutation?, transport: any Transport = URLSessionTransport(),
        onShutdown: @escaping @Sendable () -> Void = {}
    ) {
        self.mutation = mutation
        self.transport = transport
        self.onShutdown = onShutdown
    }

    /// One client and the lock that makes its commands run one at a time, in the order they arrive.
    private final class ClientEntry: @unchecked Sendable {
        let lock = NSLock()
        let client: GronaClient
        var isClosed = false

        init(client: GronaClient) {
            self.client = client
        }
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        switch (request.method, Array(segments)) {
        case ("GET", [""]): return info()
        case ("DELETE", [""]):
            return HTTPResponse(status: 204, afterSending: onShutdown)
        case ("POST", ["clients"]): return create(request.body)
        case ("POST", let path) where path.count == 2 && path[0] == "clients":
            return command(String(path[1]), request.body)
        case ("DELETE", let path) where path.count == 2 && path[0] == "clients":
            return close(String(path[1]))
        case (_, [""]), (_, ["clients"]):
            return ServiceError(status: 405, message: "\(request.method) is not allowed on \(request.path)").response
        case (_, let path) where path.count == 2 && path[0] == "clients":
            return ServiceError(status: 405, message: "\(request.method) is not allowed on \(request.path)").response
        default:
            return ServiceError.notFound("no such endpoint: \(request.path)").response
        }
    }

    private func info() -> HTTPResponse {
        var body: JSON = [
            "name": .string(Self.name), "version": .string(Self.version), "protocol": .integer(Self.protocolVersion),
            "capabilities": .array(Self.capabilities.map(JSON.string)),
        ]
        if let mutation { body = body.settingMember("mutation", .string(mutation.rawValue)) }
        return json(200, body)
    }

    private func create(_ bytes: [UInt8]) -> HTTPResponse {
        let settings: ClientSettings
        do {
            settings = try ClientSettings(parse(bytes), mutation: mutation)
        } catch {
            return error.response
        }
        let openClients = lock.withLock { clients.count }
        guard openClients < Self.maxClients else {
            return ServiceError(status: 503, message: "\(Self.maxClients) clients are open; close some").response
        }
        guard let client = start(settings) else {
            return ServiceError(status: 500, message: "the client did not start").response
        }
        let id = register(client)
        var response = json(201, ["id": .string(id)])
        response.headers.append(("Location", "/clients/\(id)"))
        return response
    }

    /// Starts the SDK client; returns once its bundled configuration is loaded and its first requests settled.
    private func start(_ settings: ClientSettings) -> GronaClient? {
        let options = settings.options
        let transport = self.transport
        var grantsSource: PlatformGrantsSource?
        if let secretKey = settings.grantsSecretKey {
            grantsSource = PlatformGrantsSource(baseURL: options.baseURL, secretKey: secretKey, transport: transport)
        }
        let source = grantsSource
        return runBlocking {
            await GronaClient.start(options: options, transport: transport, grantsSource: source)
        }
    }

    private func register(_ client: GronaClient) -> String {
        lock.lock()
        defer { lock.unlock() }
        lastID += 1
        let id = String(lastID)
        clients[id] = ClientEntry(client: client)
        return id
    }

    private func command(_ id: String, _ bytes: [UInt8]) -> HTTPResponse {
        guard let entry = lock.withLock({ clients[id] }) else {
            return ServiceError.notFound("no client \(id)").response
        }
        let command: Command
        do {
            command = try Command(parse(bytes))
        } catch {
            return error.response
        }
        return entry.lock.withLock {
            guard !entry.isClosed else { return ServiceError.notFound("client \(id) is closed").response }
            let client = entry.client
            switch runBlocking({ await CommandRunner.run(command, on: client) }) {
            case .success(let result)?: return json(200, result)
            case .failure(let error)?: return error.response
            case nil: return ServiceError(status: 500, message: "the command did not finish").response
            }
        }
    }

    private func close(_ id: String) -> HTTPResponse {
        guard let entry = lock.withLock({ clients.removeValue(forKey: id) }) else {
            return ServiceError.notFound("no client \(id)").response
        }
        entry.lock.withLock {
            entry.isClosed = true
            let client = entry.client
            _ = runBlocking { await client.close() }
        }
        return HTTPResponse(status: 204)
    }

    private func parse(_ bytes: [UInt8]) throws(ServiceError) -> JSON {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw .badRequest("the body is not JSON: \(error)")
        }
    }

    private func json(_ status: Int, _ body: JSON) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body.serialized)
    }
}

extension JSON {
    fileprivate func settingMember(_ key: String, _ value: JSON) -> JSON {
        guard var object = objectValue else { return self }
        object[key] = value
        return .object(object)
    }
}
