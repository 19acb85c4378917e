/// Contract §5's assignment of one unit, remembered while the checker sees that unit's events: the events
/// of a visit share their install (and customer), and each assignment costs a SHA-256, which was a tenth of
/// a violation scan's time. Holds one unit at a time, so its memory does not grow with the stream.
struct AssignmentMemo {
    private var unit: String?
    private var heldOut: Bool?
    /// Per campaign id: the id of the variant assigned, nil when the weights do not reach the bucket.
    private var variants: [String: String?] = [:]
    /// `variants`' last answer.
    private var lastVariant: (campaignID: String, variantID: String?)?

    /// `Assignment.isHeldOut`, remembered for the unit.
    mutating func isHeldOut(_ unit: String, by holdout: Holdout?) -> Bool {
        switchTo(unit)
        if let heldOut { return heldOut }
        let answer = Assignment.isHeldOut(unit, by: holdout)
        heldOut = answer
        return answer
    }

    /// `Assignment.variant`, remembered for the unit and campaign.
    mutating func variant(of campaign: Campaign, for unit: String) -> Variant? {
        switchTo(unit)
        let id: String?
        // A visit's events mostly name the campaign the one before named: compared, not hashed.
        if let last = lastVariant, last.campaignID == campaign.id {
            id = last.variantID
        } else if let known = variants[campaign.id] {
            id = known
        } else {
            id = Assignment.variant(of: campaign, for: unit)?.id
            variants[campaign.id] = id
        }
        lastVariant = (campaign.id, id)
        return id.flatMap { id in campaign.variants.first { $0.id == id } }
    }

    private mutating func switchTo(_ unit: String) {
        guard self.unit != unit else { return }
        self.unit = unit
        heldOut = nil
        variants.removeAll(keepingCapacity: true)
        lastVariant = nil
    }
}
