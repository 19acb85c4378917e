import GronaMock
import GronaMockPlatform

/// What a run needs before its first visit: the workspace's JWKS and a configuration that verifies against
/// it (contract §3, §4). A run that cannot get them is not made (exit status 1), and says why in terms of
/// what was given: a workspace the service does not serve, a service that is not a Grona one.
extension FleetRunner {
    /// Attempts at the first configuration, and the backoff before each retry: an SDK retries a failed
    /// fetch, and one faulted answer (a `bad_signature` rule with a count of 1) must not stop the run.
    static let firstConfigBackoffs: [Duration] = [.milliseconds(100), .milliseconds(250), .milliseconds(500)]

    static func fetchKeys(_ client: HTTPClient, _ settings: LoadSettings) throws(LoadRunError) -> [String:
        P256PublicKey]
    {
        let path = "/v1/mobile/workspaces/\(settings.workspace)/jwks.json"
        let completion = client.exchange(
            ClientRequest(
                tag: RequestTag(endpoint: nil), method: "GET", path: path, host: client.host,
                intendedStart: MonotonicClock.now(), answerLimit: AnswerLimit.keys))
        let head: HTTPResponseHead
        let body: [UInt8]
        switch completion.outcome {
        case .response(let answered, let bytes):
            (head, body) = (answered, bytes)
        case .failure(.malformed), .failure(.answerTooLarge):
            // It answered, but not as a Grona service does.
            throw LoadRunError(
                "\(settings.url) does not look like a Grona service: GET \(path): \(client.failureDescription(of: completion))"
            )
        case .failure(let failure) where failure.isTLS:
            throw LoadRunError("\(settings.url): \(client.failureDescription(of: completion))")
        case .failure:
            throw LoadRunError("\(settings.url) is unreachable: \(client.failureDescription(of: completion))")
        }
        guard head.status != 404 else {
            throw LoadRunError(
                "workspace \(settings.workspace) is not served by \(settings.url) (GET \(path) answered 404)")
        }
        guard head.status == 200 else { throw LoadRunError("GET \(path) answered \(head.status)") }
        do {
            return try JWK.publicKeys(fromSet: body)
        } catch {
            throw LoadRunError(
                "\(settings.url) does not look like a Grona service: GET \(path) did not answer a JWKS (\(error))")
        }
    }

    /// The configuration the fleet starts from (the copy an app bundles), fetched until one verifies, at most
    /// `firstConfigBackoffs.count + 1` times. Not counted in the run's statistics: `configs verified` is the
    /// fleet's own fetches and polls.
    static func fetchFirstConfig(
        _ client: HTTPClient, _ settings: LoadSettings, into configs: inout ConfigStore
    ) throws(LoadRunError) {
        let path = "/v1/mobile/workspaces/\(settings.workspace)/config"
        var failures: [String] = []
        for attempt in 0...firstConfigBackoffs.count {
            if attempt > 0 { pause(client, for: firstConfigBackoffs[attempt - 1]) }
            let completion = client.exchange(
                ClientRequest(
                    tag: RequestTag(endpoint: nil), method: "GET", path: path, host: client.host,
                    intendedStart: MonotonicClock.now(), answerLimit: AnswerLimit.configuration))
            guard case .response(let head, let body) = completion.outcome else {
                failures.append(client.failureDescription(of: completion))
                // A service that did not answer within --timeout has had its chance: four of them would
                // keep the user waiting four timeouts for an exit status.
                if case .failure(.timeout) = completion.outcome { break }
                continue
            }
            guard head.status == 200 else {
                failures.append("answered \(head.status)")
                continue
            }
            switch configs.accept(body, etag: head.etag) {
            case .success: return
            case .failure(let rejection): failures.append("did not verify: \(rejection)")
            }
        }
        let reasons = failures.enumerated().map { "\($0.offset + 1)) \($0.element)" }.joined(separator: "; ")
        throw LoadRunError(
            "GET \(path) failed \(failures.count == 1 ? "once" : "\(failures.count) times"), the configuration could not be fetched and verified: "
                + reasons)
    }

    /// Waits `duration` on the client's poller (nothing is in flight, so nothing but the clock wakes it).
    private static func pause(_ client: HTTPClient, for duration: Duration) {
        let until = MonotonicClock.deadline(from: client.tick(), after: duration)
        while client.now < until {
            client.poll(timeoutMilliseconds: Int32(clamping: (until - client.now) / 1_000_000 + 1)) { _ in }
        }
    }
}
