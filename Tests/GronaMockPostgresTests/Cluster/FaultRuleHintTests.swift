import Testing

@testable import GronaMockPostgres

/// The flag that lets a request skip the shared fault table (`PostgresFaultRules.mayHaveRules`) follows the
/// reads in the order they began, not the order they finished. Once CI caught a follower's read, begun
/// before another instance added a rule, clearing the flag after a listing had seen the rule: the next
/// request on that instance skipped the rule (issue 15's seeded-rule test drew one sequence short).
@Suite("Cluster: whether fault rules exist")
struct FaultRuleHintTests {
    /// No connection is opened: the pool connects on first use, and these tests use none.
    private static func rules() throws -> PostgresFaultRules {
        let url = try #require(PostgresURL("postgres://grona@127.0.0.1:1/none"))
        return PostgresFaultRules(pool: PostgresPool(url: url, readers: 1))
    }

    @Test("a read that began before a newer one cannot overwrite what the newer one found")
    func staleReadIsIgnored() throws {
        let rules = try Self.rules()
        let follower = rules.observation()
        let listing = rules.observation()
        rules.rulesExist(true, observedAt: listing)
        rules.rulesExist(false, observedAt: follower)
        #expect(rules.mayHaveRules)
    }

    @Test("a newer read is applied, in either direction")
    func newerReadIsApplied() throws {
        let rules = try Self.rules()
        rules.rulesExist(false, observedAt: rules.observation())
        #expect(!rules.mayHaveRules)
        let first = rules.observation()
        let second = rules.observation()
        rules.rulesExist(false, observedAt: first)
        rules.rulesExist(true, observedAt: second)
        #expect(rules.mayHaveRules)
        rules.rulesExist(false, observedAt: rules.observation())
        #expect(!rules.mayHaveRules)
    }
}
