extension GronaClient {
    /// Identifies the customer, or forgets them with nil (contract §6): the old customer's grants are dropped
    /// and a new customer's are fetched.
    public func identify(_ customerID: String?) async {
        guard !isClosed else { return }
        guard grants.identify(customerID, keepGrants: mutation == .keepGrantsOnIdentify) else { return }
        if let customerID { await fetchGrants(for: customerID) }
    }

    /// Fetches and verifies the customer's grants; only those that verify are kept.
    func fetchGrants(for customerID: String) async {
        guard !isClosed, let grantsSource, delivery.isOnline else {
            grants.fetchFailed(atMs: nowMs)
            return
        }
        do {
            let tokens = try await grantsSource.grants(for: customerID)
            let verified = tokens.compactMap { token -> Grant? in
                try? grantVerifier.verify(token, customerID: customerID, nowMs: nowMs).get()
            }
            grants.received(verified, for: customerID, atMs: nowMs)
        } catch {
            grants.fetchFailed(atMs: nowMs)
        }
    }

    /// An offer the SDK would show, with the grant that allows it.
    public struct Offer: Sendable {
        public var campaignID: String
        public var variantID: String
        public var placement: Placement
        public var treatmentType: String
        public var treatmentValueMilli: Int64
        public var grant: Grant
    }

    /// The offers of the configuration in use that a held, verified, unexpired grant allows: a live campaign's
    /// offer variant whose campaign, variant, treatment type and value the grant matches.
    public func offers() -> [Offer] {
        guard let configuration = store.current?.configuration else { return [] }
        var offers: [Offer] = []
        for campaign in configuration.campaigns where campaign.isLive {
            for variant in campaign.variants {
                guard let content = variant.shownContent, content.isOffer, let treatment = content.treatment,
                    let grant = grants.grant(
                        campaignID: campaign.id, variantID: variant.id, treatment: treatment, atMs: nowMs)
                else { continue }
                offers.append(
                    Offer(
                        campaignID: campaign.id, variantID: variant.id, placement: campaign.placement,
                        treatmentType: treatment.type, treatmentValueMilli: treatment.valueMilli, grant: grant))
            }
        }
        return offers
    }
}
