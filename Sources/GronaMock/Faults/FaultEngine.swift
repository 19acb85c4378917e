import GronaMockJSON
import GronaMockPlatform

/// Injected faults (contract §8): rules that make the Grona endpoints fail in the ways an SDK must survive.
///
/// Its middleware (`middleware()`, on the route group `FaultEngine.group`) consults `decide(for:workspace:claimed:)`
/// for each request to a Grona endpoint: once for the rules without a workspace as it starts, and once for the
/// rules of its workspace when the endpoint knows it (see `FaultEngine.Pass`); the `/_mock/faults` API adds,
/// lists and removes rules. Rules are checked in the order
/// they were added and the first that fires applies; the store (`FaultRuleStore`) takes each request whole, so
/// concurrent requests, on one instance or several, each see a consistent count and draw.
package final class FaultEngine: Sendable {
    /// The endpoints a rule can target, each the route of one pattern: which endpoint a request is comes
    /// from the route that took it (`FaultEngine.group`).
    package enum Endpoint: String, Sendable, CaseIterable {
        case config, grants, events

        /// The pattern of the route that serves the endpoint, as its routes file registers it.
        package var pattern: String {
            switch self {
            case .config: ConfigRoutes.configPattern
            case .grants: GrantsRoutes.pattern
            case .events: EventsRoutes.pattern
            }
        }

        /// The endpoint a route pattern serves; nil for a route that is not faultable.
        package init?(route pattern: String) {
            guard let endpoint = Self.allCases.first(where: { $0.pattern == pattern }) else { return nil }
            self = endpoint
        }
    }

    /// Where the rules live: in this process, or shared by the instances on one database.
    package let rules: any FaultRuleStore
    let logger: Logger?

    package init(rules: any FaultRuleStore = LocalFaultRules(), logger: Logger? = nil) {
        self.rules = rules
        self.logger = logger
    }

    /// Told each rule that fires (the engine's event stream), on the request's thread: it must be quick.
    package func onFired(_ listener: @escaping @Sendable (FaultFiring) -> Void) {
        fired.withLock { $0 = FiredListener(call: listener) }
    }

    private struct FiredListener: Sendable {
        let call: @Sendable (FaultFiring) -> Void
    }

    private let fired = Mutex<FiredListener?>(nil)

    /// Tells the listener that `action` fired for a request of `endpoint`.
    func tellFired(_ action: FaultAction, endpoint: Endpoint, workspace: String?) {
        fired.withLock { $0 }?.call(FaultFiring(endpoint: endpoint, workspace: workspace, action: action))
    }

    /// The fault to apply to this request, if a rule fires for it.
    ///
    /// Asks the rules that target `endpoint` and belong to `workspace`: with nil, the rules without a workspace
    /// (which apply to every workspace); with a key, only the rules scoped to it, so that their counts and draws
    /// advance on that workspace's requests alone. `claimed` says that a rule already fired for this request
    /// in an earlier pass: these rules then take their draws but none fires.
    func decide(for endpoint: Endpoint, workspace: String? = nil, claimed: Bool = false) throws(StorageError)
        -> FaultAction?
    {
        try rules.take(endpoint, workspace: workspace, claimed: claimed)
    }

    /// Adds a rule and returns it as listed, with its id.
    func add(_ rule: FaultRule) throws(StorageError) -> JSONObject {
        try rules.add(rule)
    }

    /// Every rule, oldest first, with how often each fired and how many fires it has left.
    func listing() throws(StorageError) -> [JSONObject] {
        try rules.listing()
    }

    func listing(id: String) throws(StorageError) -> JSONObject? {
        try rules.listing(id: id)
    }

    /// Removes one rule; false when there is none with that id.
    func remove(id: String) throws(StorageError) -> Bool {
        try rules.remove(id: id)
    }

    /// Removes the rules scoped to `workspace` (`POST /_mock/reset?workspace=`) and says how many there were.
    /// Rules without a workspace apply to every workspace, so they stay: one test run must not take away
    /// another's faults.
    @discardableResult
    package func clear(workspace: String) throws(StorageError) -> Int {
        try rules.clear(workspace: workspace)
    }

    /// Removes every rule (`DELETE /_mock/faults`, `POST /_mock/reset`) and says how many there were.
    @discardableResult
    package func clear() throws(StorageError) -> Int {
        try rules.clear(workspace: nil)
    }
}

/// What a firing rule does to one request.
package enum FaultAction: Sendable, Equatable {
    case status(code: Int, retryAfterSeconds: Int?)
    case delay(milliseconds: Int)
    case dropConnection
    /// Cut the body after this many bytes; nil cuts it in half.
    case truncateBody(afterBytes: Int?)
    /// An endpoint-specific kind (`FaultKind.onlyEndpoint`), which the endpoint's handler applies: a tampered
    /// configuration or grant.
    case tamper(FaultKind)
}
