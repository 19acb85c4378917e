/// Decides what one placement shows in a visit (service protocol, "Deciding"): among the campaigns of that
/// placement that are live, scheduled on the SDK's clock, targeted at the visit, whose unit exists and whose
/// content the SDK can show, the highest priority (then configuration order) wins; its arm follows contract §5,
/// holdout first, then the variant. A preview pin takes its placement with its variant whatever the assignment.
struct Decider {
    let configuration: Configuration
    /// Campaigns killed since the visit started.
    let killed: Set<String>
    let nowMs: Int64
    let context: TargetingContext
    let installID: String
    let customerID: String?
    let grants: GrantBook
    let previewToken: String?
    let mutation: Mutation?

    func decide(_ placement: Placement) -> Decision? {
        let campaigns = configuration.campaigns.filter { $0.placement == placement && isCandidate($0) }
            .sorted { Decision.ranks($0, before: $1, mutation: mutation) }
        if let pinned = previewDecision(among: campaigns) { return pinned }
        for campaign in campaigns {
            if let decision = assign(campaign) { return decision }
        }
        return nil
    }

    /// Live, not killed, scheduled, targeted, and with its unit.
    private func isCandidate(_ campaign: Campaign) -> Bool {
        guard campaign.isLive, !killed.contains(campaign.id) else { return false }
        guard campaign.isScheduled(atMs: nowMs) || mutation == .ignoreSchedule else { return false }
        if let targeting = campaign.targeting, mutation != .ignoreTargeting, !targeting.matches(context) {
            return false
        }
        return unit(for: campaign) != nil
    }

    /// The install id, or the identified customer's (a shopper who is not identified is in no customer-unit
    /// campaign).
    private func unit(for campaign: Campaign) -> String? {
        switch campaign.unit {
        case .install: installID
        case .customer: customerID
        }
    }

    /// Contract §5: the holdout arm for a held-out unit, else the assigned variant. A treatment is a decision
    /// only if it can be shown; otherwise the campaign is skipped and the next one gets its chance.
    private func assign(_ campaign: Campaign) -> Decision? {
        guard let unit = unit(for: campaign), let variant = Assignment.variant(of: campaign, for: unit) else {
            return nil
        }
        if Assignment.isHeldOut(unit, by: configuration.holdout), mutation != .ignoreHoldout {
            return Decision(campaign: campaign, variantID: variant.id, arm: .holdout, content: nil)
        }
        guard let content = variant.shownContent else {
            // The control shows nothing; the mutant shows the first treatment's content there.
            let shown =
                mutation == .showInControlOrHoldout ? campaign.variants.lazy.compactMap(\.shownContent).first : nil
            return Decision(campaign: campaign, variantID: variant.id, arm: .control, content: shown)
        }
        guard canShow(content, campaign: campaign, variantID: variant.id) else { return nil }
        return Decision(campaign: campaign, variantID: variant.id, arm: .treatment, content: content)
    }

    /// The pinned campaign and variant, if the preview token pins one of these candidates.
    private func previewDecision(among campaigns: [Campaign]) -> Decision? {
        guard mutation != .ignorePreview, let previewToken,
            let pin = configuration.previews.first(where: { $0.token == previewToken }),
            let campaign = campaigns.first(where: { $0.id == pin.campaignID }),
            let variant = campaign.variant(pin.variantID)
        else { return nil }
        guard let content = variant.shownContent else {
            return Decision(
                campaign: campaign, variantID: variant.id, arm: .control, content: nil, previewToken: previewToken)
        }
        guard canShow(content, campaign: campaign, variantID: variant.id) else { return nil }
        return Decision(
            campaign: campaign, variantID: variant.id, arm: .treatment, content: content, previewToken: previewToken)
    }

    /// Known type, images from allowed hosts, and for an offer a verified, unexpired grant that matches.
    private func canShow(_ content: Content, campaign: Campaign, variantID: String) -> Bool {
        guard content.isKnownType else { return false }
        guard content.imagesAllowed(hosts: configuration.imageHosts) || mutation == .ignoreImageHosts else {
            return false
        }
        guard content.isOffer, mutation != .offersWithoutGrant else { return true }
        guard let treatment = content.treatment else { return false }
        return grants.grant(campaignID: campaign.id, variantID: variantID, treatment: treatment, atMs: nowMs) != nil
    }
}
