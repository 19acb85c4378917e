import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A typed client for a running grona-mock's control API (`/_mock`, docs/openapi.yaml), for tests that cannot
/// link the engine: an iOS SDK's tests in the simulator, scripts, any process beside `grona-mock serve` or
/// `grona-mock exec`. Foundation only (URLSession), so it builds wherever Foundation does.
///
/// Its value types are nested (`GronaMockClient.Event`, `.Fault`, `.Violation`, ...) so that importing it adds
/// one top-level name to an SDK's namespace.
public struct GronaMockClient: Sendable {
    /// A refusal by the server: its HTTP status and the stable `error.code` (docs/errors.md), with its sentence.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let status: Int
        /// The server's `error.code`, such as `unknown_workspace`; nil when the answer carried none.
        public let code: String?
        public let message: String
        public var description: String { "\(status) \(code ?? "-"): \(message)" }
    }

    /// The server's base URL, such as `GRONA_MOCK_URL`.
    public let baseURL: URL
    /// Sent as `Authorization: Bearer` on every call, for a server run with `--admin-token`.
    public let adminToken: String?
    private let session: URLSession

    public init(baseURL: URL, adminToken: String? = nil, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.adminToken = adminToken
        self.session = session
    }

    /// From the variables `grona-mock exec` sets (`GRONA_MOCK_URL`, `GRONA_MOCK_ADMIN_TOKEN`); nil without a URL.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let text = environment["GRONA_MOCK_URL"], let url = URL(string: text) else { return nil }
        self.init(baseURL: url, adminToken: environment["GRONA_MOCK_ADMIN_TOKEN"])
    }

    /// One call: `body` encoded as JSON when given; a status outside 200..<300 throws `Failure`.
    func send(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: (any Encodable & Sendable)? = nil
    ) async throws -> Data {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw Failure(status: 0, code: nil, message: "not a base URL: \(baseURL)")
        }
        components.path = components.path.trimmingSuffix("/") + path
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw Failure(status: 0, code: nil, message: "bad path: \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let adminToken { request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            struct Envelope: Decodable {
                struct Detail: Decodable {
                    let code: String?
                    let message: String?
                }
                let error: Detail?
            }
            let detail = (try? JSONDecoder().decode(Envelope.self, from: data))?.error
            throw Failure(
                status: status, code: detail?.code,
                message: detail?.message ?? "\(method) \(path) answered \(status)")
        }
        return data
    }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
