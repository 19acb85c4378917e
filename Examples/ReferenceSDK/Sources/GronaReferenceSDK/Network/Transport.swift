import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange as the SDK sees it. The SDK speaks to the platform only through `Transport`, so that its
/// core can be driven without sockets and the network can be anything that answers.
public struct TransportRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct TransportResponse: Sendable {
    public var status: Int
    /// Header names lowercased.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}

/// The request failed without a whole answer: no connection, a dropped one, a cut body, a timeout.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

public protocol Transport: Sendable {
    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse
}

/// The transport an app would use: Foundation's URLSession, ephemeral and with no cache, so that the SDK
/// itself decides `If-None-Match` and sees every 304 (contract §4).
public final class URLSessionTransport: Transport {
    private let session: URLSession
    private let timeout: TimeInterval

    public init(timeout: TimeInterval = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
        self.timeout = timeout
    }

    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        // A fresh connection for every request. On Linux, URLSession (libcurl underneath) that sends on a reused
        // connection which the server then closes without an answer does not fail: it waits out the whole
        // timeout (measured 30 s against grona-mock's `drop` fault; on a fresh connection it fails at once). An
        // SDK must treat a dropped connection as a failure to retry, promptly.
        urlRequest.setValue("close", forHTTPHeaderField: "Connection")
        urlRequest.httpBody = request.body.map { Data($0) }
        let result: Result<TransportResponse, TransportError> = await withCheckedContinuation { continuation in
            session.dataTask(with: urlRequest) { data, response, error in
                if let error {
                    return continuation.resume(returning: .failure(TransportError(error.localizedDescription)))
                }
                guard let response = response as? HTTPURLResponse else {
                    return continuation.resume(returning: .failure(TransportError("no HTTP response")))
                }
                var headers: [String: String] = [:]
                for (name, value) in response.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
                }
                let answer = TransportResponse(
                    status: response.statusCode, headers: headers, body: data.map { Array($0) } ?? [])
                continuation.resume(returning: .success(answer))
            }.resume()
        }
        return try result.get()
    }
}
