import GronaMockJSON
import GronaMockPlatform

/// Why `--verify` cannot work against the target, found before the run rather than after it: the whole load
/// would be made for a check that was never possible.
package struct VerifyUnavailable: Error, Sendable, CustomStringConvertible {
    /// A usage error (exit 64): the token, or the target, is wrong for `--verify`. Otherwise the target did not
    /// answer (exit 1, the run could not be made).
    package let isUsage: Bool
    package let description: String

    init(usage description: String) {
        isUsage = true
        self.description = description
    }

    init(failure description: String) {
        isUsage = false
        self.description = description
    }
}

extension RunVerifier {
    /// Asks `GET /_mock/events?workspace=W&limit=1` (docs/openapi.yaml), what `verify()` pages through after
    /// the run: a 401 is a missing or refused admin token, a 404 or an answer that is not a page of events is
    /// a service that is not a grona-mock.
    package static func checkAvailable(_ settings: LoadSettings) throws(VerifyUnavailable) {
        let client: HTTPClient
        do {
            client = try Self.client(settings)
        } catch {
            throw VerifyUnavailable(failure: "--verify: \(error)")
        }
        let path = "/_mock/events?workspace=\(settings.workspace)&limit=1"
        var headers: [(String, String)] = []
        if let token = settings.adminToken { headers.append(("Authorization", "Bearer " + token)) }
        let completion = client.exchange(
            ClientRequest(
                tag: RequestTag(endpoint: nil), method: "GET", path: path, host: client.host, headers: headers,
                intendedStart: MonotonicClock.now()))
        guard case .response(let head, let body) = completion.outcome else {
            throw VerifyUnavailable(failure: "--verify: GET \(path): \(client.failureDescription(of: completion))")
        }
        switch head.status {
        case 200:
            guard (try? JSONParser().parse(body))?["events"]?.arrayValue != nil else {
                throw VerifyUnavailable(
                    usage: "--verify needs a grona-mock: GET \(path) did not answer a page of events")
            }
        case 401 where settings.adminToken == nil:
            throw VerifyUnavailable(
                usage: "--verify: \(settings.url) asks for an admin token (GET \(path) answered 401): give "
                    + "--admin-token or GRONA_MOCK_ADMIN_TOKEN")
        case 401:
            throw VerifyUnavailable(
                usage: "--verify: \(settings.url) refused the admin token (GET \(path) answered 401)")
        case 404:
            throw VerifyUnavailable(usage: "--verify needs a grona-mock: GET \(path) answered 404")
        default:
            throw VerifyUnavailable(failure: "--verify: GET \(path) answered \(head.status)")
        }
    }
}
