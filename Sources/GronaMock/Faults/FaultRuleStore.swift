import GronaMockJSON
import GronaMockPlatform

/// Where fault rules are kept and taken from: in memory for one process (`LocalFaultRules`), or in the
/// shared database for several instances (`GronaMockPostgres`), where a rule for the next N requests fires N
/// times across the cluster and a seeded rule draws its one sequence however the requests are spread.
///
/// `take` is `FaultEngine.decide`'s contract: the rules that target `endpoint` and belong to `workspace`, in
/// the order they were added, each taking the request (`FaultRule.take`), the first that fires applying.
package protocol FaultRuleStore: Sendable {
    /// True when `take` may wait on a database: the fault middleware then runs the request off the event
    /// loop, and only while `mayHaveRules`.
    var takesRemotely: Bool { get }
    /// False when there is surely no rule, so that a request needs no round trip and no way through the rules
    /// at all (`takesRemotely` stores keep it from notifications; in memory it follows the list).
    var mayHaveRules: Bool { get }

    func take(_ endpoint: FaultEngine.Endpoint, workspace: String?, claimed: Bool) throws(StorageError) -> FaultAction?
    /// Stores `rule` under the next id (ids are never reused) and returns it as listed.
    func add(_ rule: FaultRule) throws(StorageError) -> JSONObject
    func listing() throws(StorageError) -> [JSONObject]
    func listing(id: String) throws(StorageError) -> JSONObject?
    func remove(id: String) throws(StorageError) -> Bool
    /// Removes the rules of `workspace`, or every rule (nil), and says how many there were.
    func clear(workspace: String?) throws(StorageError) -> Int
}

/// The rules of one process, behind one lock, so concurrent requests each see a consistent count and draw.
package final class LocalFaultRules: FaultRuleStore {
    private struct State {
        var rules: [FaultRule] = []
        /// Ids are never reused, so a stale id cannot remove a newer rule.
        var nextID = 1
    }

    private let state = Mutex(State())
    /// How many rules the list holds, stored under the lock after each change: read without it, on every
    /// request to a Grona endpoint.
    private let ruleCount = Atomic<Int>(0)

    package init() {}

    package var takesRemotely: Bool { false }
    package var mayHaveRules: Bool { ruleCount.load(ordering: .acquiring) > 0 }

    package func take(
        _ endpoint: FaultEngine.Endpoint, workspace: String?, claimed: Bool
    ) throws(StorageError) -> FaultAction? {
        state.withLock { state in FaultRule.take(&state.rules, endpoint, workspace: workspace, claimed: claimed) }
    }

    package func add(_ rule: FaultRule) throws(StorageError) -> JSONObject {
        state.withLock { state in
            var rule = rule
            rule.id = "fault-\(state.nextID)"
            state.nextID += 1
            state.rules.append(rule)
            ruleCount.store(state.rules.count, ordering: .releasing)
            return rule.listing
        }
    }

    package func listing() throws(StorageError) -> [JSONObject] {
        state.withLock { $0.rules.map(\.listing) }
    }

    package func listing(id: String) throws(StorageError) -> JSONObject? {
        state.withLock { state in state.rules.first { $0.id == id }?.listing }
    }

    package func remove(id: String) throws(StorageError) -> Bool {
        state.withLock { state in
            guard let index = state.rules.firstIndex(where: { $0.id == id }) else { return false }
            state.rules.remove(at: index)
            ruleCount.store(state.rules.count, ordering: .releasing)
            return true
        }
    }

    package func clear(workspace: String?) throws(StorageError) -> Int {
        state.withLock { state in
            let count = state.rules.count
            if let workspace {
                state.rules.removeAll { $0.workspace == workspace }
            } else {
                state.rules.removeAll()
            }
            ruleCount.store(state.rules.count, ordering: .releasing)
            return count - state.rules.count
        }
    }
}

extension FaultRule {
    /// One request taken by `rules` (those of `endpoint` and `workspace`, in order): every live rule takes
    /// it, the first that fires claims it. The one decision both stores make.
    package static func take(
        _ rules: inout [FaultRule], _ endpoint: FaultEngine.Endpoint, workspace: String?, claimed: Bool
    ) -> FaultAction? {
        var chosen: FaultAction?
        for index in rules.indices where rules[index].target.matches(endpoint) && rules[index].workspace == workspace {
            if rules[index].take(canFire: !claimed && chosen == nil) { chosen = rules[index].action }
        }
        return chosen
    }
}
