import Foundation

extension GronaClient {
    /// The bundled `grona-config.json`, verified like any other document.
    func loadBundledConfiguration() {
        guard let bundled = options.bundledConfiguration, mutation != .ignoreBundledConfiguration else { return }
        guard case .success(let configuration) = verifier.verify(bundled) else { return }
        adopt(configuration, source: .bundle, etag: nil)
    }

    /// Asks for the configuration (contract §4): `If-None-Match` with the ETag of the document in use,
    /// `Accept-Encoding: gzip`. A 304 keeps it; a 200 is verified and adopted unless refused; anything else,
    /// or no answer, keeps what the SDK has.
    func fetchConfiguration() async {
        lastConfigurationRequestMs = nowMs
        guard !isClosed, delivery.isOnline else { return }
        var headers: [(name: String, value: String)] = [
            ("Accept-Encoding", "gzip"), ("Accept", "application/jose+json"),
        ]
        if let etag = store.current?.etag, mutation != .noETag { headers.append(("If-None-Match", etag)) }
        let url = options.baseURL.appendingPathComponent("v1/mobile/workspaces/\(options.workspaceKey)/config")
        guard let response = try? await transport.send(TransportRequest(method: "GET", url: url, headers: headers)),
            response.status == 200
        else { return }
        var body = response.body
        // URLSession inflates gzip itself on most platforms; inflate here when it did not.
        if Gzip.isGzip(body) {
            guard let inflated = Gzip.decompress(body) else { return }
            body = inflated
        }
        guard case .success(let configuration) = verifier.verify(body) else { return }
        adopt(configuration, source: .network, etag: response.header("ETag"))
    }

    /// Adopts a verified configuration unless it is a rollback. A campaign it kills or no longer lists leaves the
    /// screen at once; every other change waits for the next visit.
    func adopt(_ configuration: Configuration, source: ConfigurationStore.Source, etag: String?) {
        guard case .adopted(let previous) = store.offer(configuration, source: source, etag: etag) else { return }
        guard previous != nil, var visit else { return }
        if mutation == .changesApplyAtOnce {
            visit.configuration = configuration
            visit.slots = [:]
            visit.slotOrder = []
        }
        if mutation != .killOnNextVisit {
            for campaign in visit.configuration.campaigns where !configuration.keepsLive(campaign.id) {
                visit.killed.insert(campaign.id)
            }
            for (slot, state) in visit.slots {
                guard let decision = state.decision, visit.killed.contains(decision.campaign.id) else { continue }
                visit.slots[slot] = .withdrawn(decision)
            }
        }
        self.visit = visit
    }
}
