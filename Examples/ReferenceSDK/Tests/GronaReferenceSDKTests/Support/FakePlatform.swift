import Foundation
import GronaReferenceSDK

/// The platform's three endpoints in memory, as a `Transport`: serves a configuration document with its ETag
/// (304 to a matching `If-None-Match`), records every request and event batch, and answers events as scripted.
final class FakePlatform: Transport, @unchecked Sendable {
    struct Recorded {
        var method: String
        var path: String
        var headers: [String: String]
        var body: [UInt8]
    }

    /// How the next events request is answered.
    enum EventsAnswer {
        case status(Int, retryAfter: String?)
        case drop
    }

    private let lock = NSLock()
    private var document: [UInt8]?
    private var documentETag: String?
    private var tokens: [String] = []
    private var eventsAnswers: [EventsAnswer] = []
    private var recorded: [Recorded] = []

    func serve(_ document: [UInt8]?) {
        lock.withLock {
            self.document = document
            documentETag = document.map { "\"\(SHA256.hash($0).prefix(8).map { String($0, radix: 16) }.joined())\"" }
        }
    }

    func grant(_ tokens: [String]) { lock.withLock { self.tokens = tokens } }
    func answerEvents(_ answers: EventsAnswer...) { lock.withLock { eventsAnswers += answers } }

    var requests: [Recorded] { lock.withLock { recorded } }

    func requests(to suffix: String) -> [Recorded] { requests.filter { $0.path.hasSuffix(suffix) } }

    /// The event batches received, each as its JSON envelope (gunzipped).
    var batches: [JSON] {
        requests(to: "/v1/mobile/events").compactMap { request in
            let body = request.headers["content-encoding"] == "gzip" ? Gzip.decompress(request.body) : request.body
            return body.flatMap { try? JSONParser.parse($0) }
        }
    }

    /// Every event received, in order, including those of retried batches.
    var events: [JSON] { batches.flatMap { $0["events"]?.arrayValue ?? [] } }

    func events(_ type: String) -> [JSON] { events.filter { $0["type"]?.stringValue == type } }

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.lowercased()] = value }
        let path = request.url.path
        let result: Result<TransportResponse, TransportError> = lock.withLock {
            recorded.append(Recorded(method: request.method, path: path, headers: headers, body: request.body ?? []))
            if path.hasSuffix("/config") {
                guard let document, let documentETag else {
                    return .success(TransportResponse(status: 503, headers: [:], body: []))
                }
                if headers["if-none-match"] == documentETag {
                    return .success(TransportResponse(status: 304, headers: ["etag": documentETag], body: []))
                }
                return .success(TransportResponse(status: 200, headers: ["etag": documentETag], body: document))
            }
            if path.hasSuffix("/events") {
                let answer = eventsAnswers.isEmpty ? .status(200, retryAfter: nil) : eventsAnswers.removeFirst()
                switch answer {
                case .status(let status, let retryAfter):
                    let answerHeaders = retryAfter.map { ["retry-after": $0] } ?? [:]
                    return .success(TransportResponse(status: status, headers: answerHeaders, body: Array("{}".utf8)))
                case .drop:
                    return .failure(TransportError("the connection was dropped"))
                }
            }
            return .success(TransportResponse(status: 404, headers: [:], body: []))
        }
        return try result.get()
    }
}

/// Grants straight from the fake platform's list, as an app's backend would hand them over.
struct FakeGrantsSource: GrantsSource {
    let platform: FakePlatform
    let counter = Counter()

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    func grants(for customerID: String) async throws(TransportError) -> [String] {
        counter.increment()
        return platform.currentTokens
    }
}

extension FakePlatform {
    var currentTokens: [String] { lock.withLock { tokens } }
}
