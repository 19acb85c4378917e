import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The SDK's client for the three Grona endpoints, reduced to what its tests exercise: the signed
/// configuration (with its ETag) and event batches (gzip, retried on 429 and 503 after `Retry-After`).
public final class GronaClient: Sendable {
    public let workspace: Workspace
    public let installID: String
    let logger = Logger(subsystem: "com.acme.sdk")
    private let session: URLSession

    public init(workspace: Workspace, installID: String = UUID().uuidString) {
        self.workspace = workspace
        self.installID = installID
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    /// The configuration document as served, with its ETag.
    public func fetchConfiguration() async throws -> (document: Data, etag: String?) {
        let url = workspace.baseURL.appendingPathComponent("v1/mobile/workspaces/\(workspace.key)/config")
        let (data, response) = try await send(URLRequest(url: url))
        guard response.statusCode == 200 else { throw ClientError.status(response.statusCode) }
        return (data, response.value(forHTTPHeaderField: "ETag"))
    }

    /// The campaigns of the configuration's payload (not verified here: the test kit verifies signatures).
    public func campaigns() async throws -> [Campaign] {
        let (document, _) = try await fetchConfiguration()
        struct JWS: Decodable { let payload: String }
        struct Payload: Decodable { let campaigns: [Campaign] }
        var encoded = try JSONDecoder().decode(JWS.self, from: document).payload
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while encoded.count % 4 != 0 { encoded += "=" }
        guard let payload = Data(base64Encoded: encoded) else { throw ClientError.malformed }
        return try JSONDecoder().decode(Payload.self, from: payload).campaigns
    }

    /// Posts one batch of events, gzipped; retries up to `attempts` times on 429 or 503, waiting what
    /// `Retry-After` says (capped) or a short backoff. Returns the attempts it took.
    @discardableResult
    public func send(events: [[String: Any & Sendable]], attempts: Int = 3) async throws -> Int {
        let envelope: [String: Any] = [
            "workspaceKey": workspace.key, "installID": installID, "sdk": ["platform": "ios", "version": "1.4.0"],
            "app": ["id": "com.acme.market", "version": "5.2.0"],
            "sentAt": Int64(Date().timeIntervalSince1970 * 1000), "events": events,
        ]
        let json = try JSONSerialization.data(withJSONObject: envelope)
        var request = URLRequest(url: workspace.baseURL.appendingPathComponent("v1/mobile/events"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let gzipped = Gzip.compress(json) {
            request.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
            request.httpBody = gzipped
        } else {
            request.httpBody = json
        }
        for attempt in 1...max(1, attempts) {
            let (_, response) = try await send(request)
            if response.statusCode == 200 { return attempt }
            guard response.statusCode == 429 || response.statusCode == 503, attempt < attempts else {
                throw ClientError.status(response.statusCode)
            }
            let retryAfter = response.value(forHTTPHeaderField: "Retry-After").flatMap(Double.init) ?? 0.05
            logger.log("retrying after \(retryAfter) s")
            try await Task.sleep(for: .milliseconds(Int(min(retryAfter, 2) * 1000)))
        }
        throw ClientError.status(0)
    }

    private func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                guard let response = response as? HTTPURLResponse else {
                    return continuation.resume(throwing: ClientError.malformed)
                }
                continuation.resume(returning: (data ?? Data(), response))
            }.resume()
        }
    }

    public enum ClientError: Error {
        case status(Int)
        case malformed
    }
}
