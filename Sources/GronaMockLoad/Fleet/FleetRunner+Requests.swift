import GronaMock
import GronaMockJSON

/// The configuration and grants an install asks for (contract §4, §6), and the run's first fetches.
extension FleetRunner {
    var configPath: String { "/v1/mobile/workspaces/\(settings.workspace)/config" }

    /// Fetches the configuration: at launch in full (the install runs on the copy the app bundles, the run's
    /// first fetch, until it has its own), then polled with `If-None-Match` of the one the install holds.
    func requestConfig(_ index: Int, due: UInt64, conditional: Bool = true) {
        var headers: [(String, String)] = []
        if conditional, let etag = configs.etags[installs[index].configuration] {
            headers.append(("If-None-Match", etag))
        }
        installs[index].configRequestInFlight = true
        client.submitNow(
            ClientRequest(
                tag: RequestTag(endpoint: .config, owner: index), method: "GET", path: configPath, host: client.host,
                headers: headers, intendedStart: due))
    }

    /// A 200 is verified (once per `ETag`) and held unless it is older than what the install has (the SDK
    /// refuses a rollback); a 304 keeps what it has. The next poll is at `max-age`, at least a second later.
    func configAnswered(_ index: Int, _ completion: ClientCompletion) {
        installs[index].configRequestInFlight = false
        var maxAge = 60
        if case .response(let head, let body) = completion.outcome {
            maxAge = head.maxAgeSeconds ?? 60
            if head.status == 200 {
                switch configs.accept(body, etag: head.etag) {
                case .success(let received):
                    statistics.configsVerified += 1
                    let held = installs[index].configuration
                    if received != held && configs.configs[received].revision >= configs.configs[held].revision {
                        installs[index].configuration = received
                        configs.hold(received)
                        configs.release(held)
                        // Other campaigns under the same revision would keep the old draws.
                        installs[index].assignmentRevision = nil
                    }
                case .failure:
                    statistics.configsRejected += 1
                }
            }
        }
        let next = completion.finishedAt &+ UInt64(min(max(maxAge, 1), 86_400)) * 1_000_000_000
        timers.schedule(.configPoll(index), at: next)
    }

    /// Fetches the customer's grants when it has none that are still good for a minute, as the SDK refreshes
    /// them before they expire; only with the secret key, and only for an identified shopper.
    func refreshGrantsIfDue(_ index: Int, at intended: UInt64, now: UInt64) {
        guard let secretKey = settings.secretKey, let customer = installs[index].customerID,
            !installs[index].grantRequestInFlight, now >= installs[index].nextGrantRequestAt
        else { return }
        let wallSeconds = WallClock.milliseconds() / 1000
        installs[index].grants.removeAll { $0.expiresAt <= wallSeconds + 60 }
        guard installs[index].grants.isEmpty || installs[index].grantsValidUntil <= wallSeconds + 60 else { return }
        installs[index].grantRequestInFlight = true
        client.submitNow(
            ClientRequest(
                tag: RequestTag(endpoint: .grants, owner: index), method: "POST", path: "/v1/mobile/grants",
                host: client.host,
                headers: [("Authorization", "Bearer " + secretKey), ("Content-Type", "application/json")],
                body: Array("{\"customerID\":\(JSONText.quoted(customer))}".utf8), intendedStart: intended))
    }

    func grantsAnswered(_ index: Int, _ completion: ClientCompletion) {
        installs[index].grantRequestInFlight = false
        guard case .response(let head, let body) = completion.outcome, head.status == 200,
            let customer = installs[index].customerID
        else {
            // Refused or failed: ask again a little later, not on every visit.
            installs[index].nextGrantRequestAt = completion.finishedAt &+ 30_000_000_000
            return
        }
        let tokens = ((try? JSONParser().parse(body))?["grants"]?.arrayValue ?? []).compactMap(\.stringValue)
        let (held, rejected) = GrantCheck.verify(
            tokens, customer: customer, workspace: settings.workspace, keys: configs.keys,
            now: WallClock.milliseconds() / 1000)
        statistics.grantsVerified += held.count
        statistics.grantsRejected += rejected
        installs[index].grants = held
        // With no offer to hold, the answer stays good for the grant window's length; ask again in a minute.
        installs[index].grantsValidUntil = held.map(\.expiresAt).min() ?? (WallClock.milliseconds() / 1000 + 120)
        installs[index].nextGrantRequestAt = completion.finishedAt &+ 60_000_000_000
    }
}

extension ClientCompletion {
    var failureDescription: String {
        if case .failure(let failure) = outcome {
            switch failure {
            case .connect: return "the connection was refused or could not be made"
            case .closed: return "the connection closed before an answer"
            case .timeout: return "no answer within the timeout"
            case .malformed: return "the answer was not HTTP/1.1"
            case .answerTooLarge: return "the answer was larger than the generator keeps of one"
            case .tlsUnknownCA, .tlsNameMismatch, .tlsCertificate, .tlsHandshake:
                return "the TLS handshake failed [\(failure.rawValue)]"
            }
        }
        return "status \(status ?? 0)"
    }
}
