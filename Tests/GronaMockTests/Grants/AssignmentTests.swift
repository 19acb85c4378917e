import GronaMock
import GronaMockTestSupport
import Testing

@Suite("Assignment (contract §5)")
struct AssignmentTests {
    @Test(
        "the contract's bucket vectors",
        arguments: [
            ("cart-free-delivery-1", "install-0001", 3298), ("cart-free-delivery-1", "install-0002", 4353),
            ("checkout-10-off-1", "cust_123", 7938), ("checkout-10-off-1", "cust_456", 6680),
            ("acme-holdout-1", "cust_123", 5573), ("salt", "ünïcødé-ユーザー", 2146), ("", "", 4234),
        ])
    func vectors(salt: String, unit: String, bucket: Int) {
        #expect(Assignment.bucket(salt: salt, unit: unit) == bucket)
    }

    @Test("100,000 units split across variants within 1 % of their weights")
    func distribution() {
        let weights: [Int64] = [1000, 2500, 6500]
        let campaign = Campaign(
            id: "c", status: .live, priority: 0, placement: .homeTop, assignmentUnit: .install, salt: "spread-1",
            startsAt: nil, endsAt: nil,
            variants: weights.enumerated().map { Variant(id: "v\($0.offset)", weight: $0.element, isControl: false) })
        var counts: [String: Int] = [:]
        for index in 0..<100_000 {
            counts[Assignment.variant(of: campaign, for: "install-\(index)")?.id ?? "none", default: 0] += 1
        }
        #expect(counts["none"] == nil)
        for (offset, weight) in weights.enumerated() {
            let share = Double(counts["v\(offset)"] ?? 0) / 100_000
            #expect(abs(share - Double(weight) / 10_000) < 0.01, "v\(offset): \(share)")
        }
    }

    @Test("variants are walked in order against the running sum; a holdout takes buckets below its weight")
    func walkAndHoldout() {
        // cust_123 is in bucket 7938 of "checkout-10-off-1": past 5000 of control, inside ten-off.
        let campaign = Campaign(
            id: "checkout-10-off", status: .live, priority: 0, placement: .checkoutAbovePay,
            assignmentUnit: .customer, salt: "checkout-10-off-1", startsAt: nil, endsAt: nil,
            variants: [
                Variant(id: "control", weight: 5000, isControl: true),
                Variant(id: "ten-off", weight: 5000, isControl: false),
            ])
        #expect(Assignment.variant(of: campaign, for: "cust_123")?.id == "ten-off")
        // cust_123 is in bucket 5573 of "acme-holdout-1".
        #expect(Assignment.isHeldOut("cust_123", by: Holdout(salt: "acme-holdout-1", weight: 5574)))
        #expect(!Assignment.isHeldOut("cust_123", by: Holdout(salt: "acme-holdout-1", weight: 5573)))
        #expect(!Assignment.isHeldOut("cust_123", by: nil))
    }
}
