/// The grants the SDK holds for the identified customer, and when it must ask again (contract §6, service
/// protocol "Grants"): fetched at creation and on `identify`, again when less than 5 minutes are left to the
/// nearest `exp`, dropped when the customer changes.
public struct GrantBook: Sendable {
    /// Refresh when this little is left before the nearest expiry.
    public static let refreshMarginMs: Int64 = 300_000

    /// Where the last request for this customer's grants stands.
    public enum Fetch: Sendable, Equatable {
        /// Not asked yet (no customer, or just identified).
        case never
        /// Answered at this SDK time; the verified grants are held.
        case answered(atMs: Int64)
        /// Failed at this SDK time (no network, an error status): asked again when the network comes back.
        case failed(atMs: Int64)
    }

    public private(set) var customerID: String?
    public private(set) var grants: [Grant] = []
    public private(set) var fetch: Fetch = .never

    public init(customerID: String?) {
        self.customerID = customerID
    }

    /// A new customer (or none): the grants go with the old one. Returns whether the customer changed.
    public mutating func identify(_ customerID: String?, keepGrants: Bool = false) -> Bool {
        guard customerID != self.customerID else { return false }
        self.customerID = customerID
        if !keepGrants { grants = [] }
        fetch = .never
        return true
    }

    /// The answer to a fetch made at `nowMs` for `customerID`: its verified grants replace the held ones. An
    /// answer for a customer who is no longer the identified one is dropped.
    public mutating func received(_ verified: [Grant], for customerID: String, atMs nowMs: Int64) {
        guard customerID == self.customerID else { return }
        grants = verified
        fetch = .answered(atMs: nowMs)
    }

    /// A fetch at `nowMs` that failed: the grants held are kept.
    public mutating func fetchFailed(atMs nowMs: Int64) {
        fetch = .failed(atMs: nowMs)
    }

    /// Whether the last fetch failed, so that the network coming back should ask again.
    public var lastFetchFailed: Bool {
        if case .failed = fetch { return true }
        return false
    }

    /// Drops the grants no longer valid at `nowMs` (past `exp` and its leeway).
    public mutating func dropExpired(atMs nowMs: Int64) {
        grants.removeAll { $0.expires * 1000 + Grant.leewayMs <= nowMs }
    }

    /// When to ask again: 5 minutes before the nearest `exp`. A grant that was already inside those 5 minutes
    /// at the last fetch (the platform gave the same window's grant again) is asked for again once it has
    /// expired for good, so the refresh time always moves forward and never repeats at one instant.
    public func refreshDueMs() -> Int64? {
        guard customerID != nil else { return nil }
        let lastFetchMs: Int64
        switch fetch {
        case .never: return nil
        case .answered(let atMs), .failed(let atMs): lastFetchMs = atMs
        }
        return grants.map { grant in
            let early = grant.expires * 1000 - Self.refreshMarginMs
            return early > lastFetchMs ? early : grant.expires * 1000 + Grant.leewayMs
        }.min()
    }

    /// The held grant for this offer that is valid at `nowMs`, if any.
    public func grant(
        campaignID: String, variantID: String, treatment: (type: String, valueMilli: Int64), atMs nowMs: Int64
    ) -> Grant? {
        grants.first {
            $0.matches(campaignID: campaignID, variantID: variantID, treatment: treatment) && $0.isValid(atMs: nowMs)
        }
    }
}
