import GronaMock
import Testing

/// `EventRows` packs what the writer binds; unpacking must give back every field as it was.
@Suite("Packed event rows")
struct EventRowsTests {
    @Test("records read back unchanged from their packed rows, with their treatments and absent fields")
    func roundTrip() {
        let treatment = ClaimedTreatment(
            campaignID: "c-1", variantID: "v-1", placement: "checkout_above_pay", type: "percent_off",
            valueMilli: 10_000)
        let records = [
            EventRecord(
                workspaceKey: "shop", eventID: "ünï-1", type: "exposure", timestamp: 1, receivedAt: 2,
                correctedTimestamp: 3, installID: "install-1", customerID: "", sessionID: "s-1", visitID: "v",
                campaignID: "home-hero", variantID: "banner", arm: "treatment", placement: "home_top", demo: true,
                configRevision: 4, json: Array("{\"a\":1}".utf8)),
            EventRecord(
                workspaceKey: "shop", eventID: "p", type: "purchase", timestamp: 5, receivedAt: 6,
                correctedTimestamp: 7, installID: "install-1", treatments: [treatment, treatment], totalMinor: 999,
                json: []),
            EventRecord(
                workspaceKey: "other", eventID: "x", type: "bogus", timestamp: 8, receivedAt: 9,
                correctedTimestamp: 10, installID: "i", json: [0]),
        ]
        let rows = EventRows(records)
        #expect(Array(rows) == records)
        #expect(rows.treatments.count == 2)
        #expect(rows.rows.map(\.treatments) == [0..<0, 0..<2, 2..<2])
        var expected = EventTypeCounts()
        expected.add(slot: EventTypeCounts.slot(of: "exposure"))
        expected.add(slot: EventTypeCounts.slot(of: "purchase"))
        expected.add(slot: EventTypeCounts.invalidSlot)
        #expect(rows.typeCounts == expected)
    }

    @Test("type slots name the vocabulary, then invalid")
    func typeSlots() {
        let labels = (0..<EventTypeCounts.slotCount).map(EventTypeCounts.label(ofSlot:))
        #expect(labels == EventType.allCases.map(\.rawValue) + ["invalid"])
        #expect(EventTypeCounts.slot(of: nil) == EventTypeCounts.invalidSlot)
        #expect(EventTypeCounts.slot(of: "Exposure") == EventTypeCounts.invalidSlot)
    }
}
