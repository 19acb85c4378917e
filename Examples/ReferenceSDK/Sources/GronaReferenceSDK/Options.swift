import Foundation

/// What an app gives the SDK (contract, SDK's side; service protocol "Creating a client").
public struct SDKOptions: Sendable {
    public struct Events: Sendable {
        public var maxBatchSize: Int
        public var maxAgeMs: Int64
        public var gzip: Bool
        public var maxQueued: Int

        public init(maxBatchSize: Int = 20, maxAgeMs: Int64 = 10_000, gzip: Bool = true, maxQueued: Int = 1000) {
            self.maxBatchSize = maxBatchSize
            self.maxAgeMs = maxAgeMs
            self.gzip = gzip
            self.maxQueued = maxQueued
        }
    }

    public struct App: Sendable {
        public var id: String
        public var version: String

        public init(id: String, version: String) {
            self.id = id
            self.version = version
        }
    }

    /// The platform's base URL; the three endpoints are below it.
    public var baseURL: URL
    public var workspaceKey: String
    /// The configuration keys, the current one first (contract §2).
    public var configKeys: KeyRing
    public var grantKeys: KeyRing
    /// The text of a bundled `grona-config.json`, used until the network gives a newer one.
    public var bundledConfiguration: [UInt8]?
    public var installID: String
    public var customerID: String?
    /// A preview pin to apply (contract §4 `previews`).
    public var previewToken: String?
    public var events: Events
    public var pollIntervalMs: Int64
    public var app: App
    /// Where the SDK clock starts (Unix epoch ms). It moves only through `advanceTime`.
    public var startMs: Int64
    /// The one behaviour to break, for the conformance catalogue's mutation runs; nil in an app.
    public var mutation: Mutation?

    public init(
        baseURL: URL, workspaceKey: String, configKeys: KeyRing, grantKeys: KeyRing,
        bundledConfiguration: [UInt8]? = nil, installID: String, customerID: String? = nil,
        previewToken: String? = nil, events: Events = Events(), pollIntervalMs: Int64 = 60_000,
        app: App = App(id: "com.example.app", version: "1.0.0"), startMs: Int64, mutation: Mutation? = nil
    ) {
        self.baseURL = baseURL
        self.workspaceKey = workspaceKey
        self.configKeys = configKeys
        self.grantKeys = grantKeys
        self.bundledConfiguration = bundledConfiguration
        self.installID = installID
        self.customerID = customerID
        self.previewToken = previewToken
        self.events = events
        self.pollIntervalMs = pollIntervalMs
        self.app = app
        self.startMs = startMs
        self.mutation = mutation
    }

    /// The SDK's own name and version, as batches carry them (contract §7 `sdk`).
    public static let sdkPlatform = "swift"
    public static let sdkVersion = "1.0.0"
}

/// Where grants come from. In an app that is its backend (which holds the secret key); the conformance service
/// stands in for it with `PlatformGrantsSource`. The SDK verifies every token whatever its source.
public protocol GrantsSource: Sendable {
    func grants(for customerID: String) async throws(TransportError) -> [String]
}

/// Grants straight from `POST /v1/mobile/grants` with a secret key (contract §6), as an app's backend would
/// fetch them. The key goes in the `Authorization` header only, never in a URL or a log.
public struct PlatformGrantsSource: GrantsSource {
    public let baseURL: URL
    private let secretKey: String
    private let transport: any Transport

    public init(baseURL: URL, secretKey: String, transport: any Transport) {
        self.baseURL = baseURL
        self.secretKey = secretKey
        self.transport = transport
    }

    public func grants(for customerID: String) async throws(TransportError) -> [String] {
        let body: JSON = ["customerID": .string(customerID)]
        let request = TransportRequest(
            method: "POST", url: baseURL.appendingPathComponent("v1/mobile/grants"),
            headers: [("Authorization", "Bearer \(secretKey)"), ("Content-Type", "application/json")],
            body: body.serialized)
        let response = try await transport.send(request)
        guard response.status == 200 else { throw TransportError("the grants endpoint answered \(response.status)") }
        guard let answer = try? JSONParser.parse(response.body), let tokens = answer["grants"]?.arrayValue else {
            throw TransportError("the grants answer is not {\"grants\": [...]}")
        }
        return tokens.compactMap(\.stringValue)
    }
}
