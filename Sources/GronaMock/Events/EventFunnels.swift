import GronaMockJSON

/// `GET /_mock/events/funnels`: per campaign, variant and arm, how many events reached each step of the
/// funnel a correct SDK logs once per visit (eligible → anchor_visible → exposure → served → action), each
/// with its share of the step before, plus dismissals and the purchases attributed through claimed
/// treatments. Built from the same grouped counts as the summary (`GronaStorage.campaignCounts`): one
/// aggregate query, whatever the number of events.
enum EventFunnels {
    static let steps: [EventType] = [.eligible, .anchorVisible, .exposure, .served, .action]
    /// The conversion the dashboard compares the arms by: from being seen to being acted on.
    static let conversion: (from: EventType, to: EventType) = (.exposure, .action)

    static func json(_ figures: CampaignCounts, workspace: String, campaignID: String?) -> JSONValue {
        struct Key: Hashable, Comparable {
            var campaign: String
            var variant: String
            var arm: String
            var demo: Bool
            static func < (lhs: Key, rhs: Key) -> Bool {
                (lhs.campaign, lhs.variant, lhs.arm) < (rhs.campaign, rhs.variant, rhs.arm)
            }
        }
        var counts: [Key: [String: Int64]] = [:]
        for row in figures.types where campaignID.map({ $0 == row.campaignID }) ?? true {
            let key = Key(campaign: row.campaignID, variant: row.variantID, arm: row.arm, demo: row.demo)
            counts[key, default: [:]][row.type, default: 0] += row.count
        }
        var purchases: [Key: CampaignCounts.Attributed] = [:]
        for row in figures.attributed where campaignID.map({ $0 == row.campaignID }) ?? true {
            let key = Key(campaign: row.campaignID, variant: row.variantID, arm: Arm.treatment.rawValue, demo: row.demo)
            purchases[key] = row
        }
        let keys = Set(counts.keys).union(purchases.keys).sorted()
        func funnels(demo: Bool) -> JSONValue {
            .array(
                keys.filter { $0.demo == demo }.map { key in
                    let typeCounts = counts[key] ?? [:]
                    var previous: Int64?
                    let stepValues = steps.map { step -> JSONValue in
                        let count = typeCounts[step.rawValue] ?? 0
                        defer { previous = count }
                        let rate = previous.flatMap { before -> JSONValue? in
                            guard before > 0 else { return nil }
                            let share = (Double(count) / Double(before) * 10_000).rounded() / 10_000
                            return JSONNumber(share).map(JSONValue.number)
                        }
                        return .object([
                            "type": .string(step.rawValue), "count": .number(JSONNumber(count)), "rate": rate ?? .null,
                        ])
                    }
                    let bought = purchases[key]
                    return .object([
                        "campaignID": .string(key.campaign), "variantID": .string(key.variant), "arm": .string(key.arm),
                        "steps": .array(stepValues),
                        "dismiss": .number(JSONNumber(typeCounts[EventType.dismiss.rawValue] ?? 0)),
                        "purchases": .number(JSONNumber(bought?.purchases ?? 0)),
                        "revenueMinor": .number(JSONNumber(bought?.revenueMinor ?? 0)),
                    ])
                })
        }
        return .object([
            "workspaceKey": .string(workspace), "funnels": funnels(demo: false), "demo": funnels(demo: true),
        ])
    }
}
