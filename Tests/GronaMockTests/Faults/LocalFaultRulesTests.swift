import GronaMock
import GronaMockJSON
import Testing

/// `LocalFaultRules.mayHaveRules` lets every request to a Grona endpoint skip the fault rules while none
/// exists (`FaultEngine.middleware`): it must be true whenever a rule is listed, or a rule would not fire.
@Suite("LocalFaultRules")
struct LocalFaultRulesTests {
    private func rule(workspace: String? = nil) throws -> FaultRule {
        let scope = workspace.map { #", "workspace": "\#($0)""# } ?? ""
        return try FaultRule.parse(
            JSONParser().parse(#"{"endpoint": "config", "kind": "status", "status": 503, "count": 1\#(scope)}"#))
    }

    @Test("mayHaveRules follows the list through add, remove and clear")
    func mayHaveRulesFollowsTheList() throws {
        let rules = LocalFaultRules()
        #expect(!rules.mayHaveRules)
        let first = try rules.add(rule())
        #expect(rules.mayHaveRules)
        _ = try rules.add(rule(workspace: "acme-market"))
        let firstID = try #require(first["id"]?.stringValue)
        #expect(try rules.remove(id: firstID))
        #expect(rules.mayHaveRules, "one rule is still listed")
        #expect(try rules.clear(workspace: "other") == 0)
        #expect(rules.mayHaveRules)
        #expect(try rules.clear(workspace: "acme-market") == 1)
        #expect(!rules.mayHaveRules)
        _ = try rules.add(rule())
        #expect(try rules.clear(workspace: nil) == 1)
        #expect(!rules.mayHaveRules)
    }
}
