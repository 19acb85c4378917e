import Testing

@testable import GronaReferenceSDK

@Suite("Assignment (contract §5)")
struct AssignmentTests {
    @Test(
        "the contract's bucket vectors",
        arguments: [
            ("cart-free-delivery-1", "install-0001", 3298), ("cart-free-delivery-1", "install-0002", 4353),
            ("checkout-10-off-1", "cust_123", 7938), ("checkout-10-off-1", "cust_456", 6680),
            ("acme-holdout-1", "cust_123", 5573), ("salt", "ünïcødé-ユーザー", 2146), ("", "", 4234),
        ] as [(String, String, Int64)])
    func vectors(salt: String, unit: String, bucket: Int64) {
        #expect(Assignment.bucket(salt: salt, unit: unit) == bucket)
    }

    @Test("the variant is the first whose running sum of weights exceeds the bucket")
    func variantWalk() throws {
        // cart-free-delivery-1 puts install-0001 in bucket 3298 and install-0002 in 4353.
        let json: JSON = [
            "id": "cart-free-delivery", "status": "live", "priority": 1, "placement": "cart_top",
            "assignment": ["unit": "install", "salt": "cart-free-delivery-1"],
            "variants": [
                ["id": "control", "weight": 3299, "control": true],
                ["id": "progress", "weight": 6701, "component": ["type": "progress", "thresholdMinor": 4000]],
            ],
        ]
        let payload: JSON = ["workspaceKey": "w", "revision": 1, "campaigns": [json]]
        let campaign = try #require(Configuration(payload: payload)?.campaigns.first)
        #expect(Assignment.variant(of: campaign, for: "install-0001")?.id == "control")
        #expect(Assignment.variant(of: campaign, for: "install-0002")?.id == "progress")
    }

    @Test("the holdout takes a unit whose holdout bucket is below its weight")
    func holdout() {
        // acme-holdout-1 puts cust_123 in bucket 5573.
        let above = Configuration.Holdout(salt: "acme-holdout-1", weight: 5574)
        let at = Configuration.Holdout(salt: "acme-holdout-1", weight: 5573)
        let heldOut = Assignment.isHeldOut("cust_123", by: above)
        let atWeight = Assignment.isHeldOut("cust_123", by: at)
        let noHoldout = Assignment.isHeldOut("cust_123", by: nil)
        #expect(heldOut)
        #expect(!atWeight)
        #expect(!noHoldout)
    }
}
