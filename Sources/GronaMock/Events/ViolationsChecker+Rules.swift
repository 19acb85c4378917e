/// The rules that judge one event at a time, each named by its `ViolationRule`; `ViolationsChecker.add` calls
/// them in order.
extension ViolationsChecker {
    /// `demo_mismatch`: every event is demo exactly when the configuration is in demo mode (contract, SDK's
    /// side).
    mutating func checkDemo(_ event: CheckedEvent) {
        if workspace.demoMode && event.demo != true {
            let said = event.demo == nil ? "does not say demo" : "says demo false"
            report(.demoMismatch, event, "\(event.kind) \(said), but the configuration is in demo mode.")
        } else if !workspace.demoMode && event.demo == true {
            report(
                .demoMismatch, event, "\(event.kind) says demo true, but demo mode is off.")
        }
    }

    /// `unknown_campaign_or_variant`, `wrong_placement` and `offer_without_grant` on a purchase's claimed
    /// treatments.
    mutating func checkPurchase(_ event: CheckedEvent) {
        for claim in event.treatments {
            let named = "\(Quote.text(claim.campaignID))/\(Quote.text(claim.variantID))"
            guard let campaign = workspace.campaign(claim.campaignID) else {
                report(
                    .unknownCampaignOrVariant, event,
                    "\(event.kind) claims a treatment of campaign \(Quote.text(claim.campaignID)), which is not in "
                        + "the configuration.")
                continue
            }
            guard campaign.variants.contains(where: { $0.id == claim.variantID }) else {
                report(
                    .unknownCampaignOrVariant, event,
                    "\(event.kind) claims variant \(Quote.text(claim.variantID)), which is not a variant of campaign "
                        + "\(Quote.text(campaign.id)).")
                continue
            }
            if let placement = claim.placement, placement != campaign.placement {
                report(
                    .wrongPlacement, event,
                    "\(event.kind) claims \(named) on placement \(placement), but the campaign is on "
                        + "\(campaign.placement).")
            }
            requireGrant(event, campaign.id, claim.variantID, subject: "\(event.kind) claims \(named)")
        }
    }

    /// `shown_in_control_or_holdout`: nothing is shown in control or holdout (contract §5), so nothing is
    /// exposed or served there.
    mutating func checkArm(_ event: CheckedEvent) {
        guard event.isOne(of: .exposure, .served), let arm = event.arm, arm.showsNothing else { return }
        report(.shownInControlOrHoldout, event, sentence: .shownInArm(type: event.type, arm: arm))
    }

    /// `event_after_kill`: the SDK applies a kill at once, even to content on screen. An event stamped with a
    /// revision that has the campaign killed is a breach whatever its time; one without a revision is judged
    /// by its corrected time, past the grace.
    mutating func checkKill(_ event: CheckedEvent, _ campaign: Campaign) {
        for interval in kills[campaign.id] ?? [] {
            if let revision = event.configRevision {
                guard revision >= interval.killedRevision,
                    interval.revivedRevision.map({ revision < $0 }) ?? true
                else { continue }
                report(
                    .eventAfterKill, event,
                    "\(event.kind) for campaign \(Quote.text(campaign.id)) from configuration "
                        + "revision \(revision), in which the campaign is killed (since revision "
                        + "\(interval.killedRevision)).")
                return
            }
            let grace = graceMilliseconds  // read before `report`, which changes self, takes the message
            guard let time = event.correctedTimestamp, time >= interval.killedAt + grace,
                interval.revivedAt.map({ time < $0 }) ?? true
            else { continue }
            report(
                .eventAfterKill, event,
                "\(event.kind) for campaign \(Quote.text(campaign.id)) at \(time), "
                    + "\(time - interval.killedAt) ms after its kill at \(interval.killedAt) (grace "
                    + "\(grace) ms).")
            return
        }
    }

    /// `wrong_assignment`: the variant and arm are the ones contract §5 gives the unit (holdout first). A
    /// preview pins its variant instead, so only the pin is checked.
    mutating func checkAssignment(_ event: CheckedEvent, _ campaign: Campaign, _ variant: Variant) {
        if let preview = event.preview {
            guard case .token(let token) = preview, !isPinned(token, campaign.id, variant.id) else { return }
            report(
                .wrongAssignment, event,
                "\(event.kind) names preview \(Quote.text(token)), which does not pin variant "
                    + "\(Quote.text(variant.id)) of campaign \(Quote.text(campaign.id)) in the configuration.")
            return
        }
        let unit: String
        switch campaign.assignmentUnit {
        case .install:
            unit = event.installID
        case .customer:
            guard let customerID = event.customerID else {
                report(
                    .wrongAssignment, event,
                    "\(event.kind) for customer-unit campaign \(Quote.text(campaign.id)) has no "
                        + "customerID; a shopper who is not identified is in no customer-unit campaign.")
                return
            }
            unit = customerID
        case .unknown:
            return  // never: the validator gives a campaign with a wrong unit an inert one
        }
        // Only a violation's message names the unit: quoting it for every event was a tenth of a scan.
        var unitName: String { "\(campaign.assignmentUnit) \(Quote.text(unit))" }
        let arm = event.arm
        var armName: String { arm?.rawValue ?? "" }
        if assignments.isHeldOut(unit, by: workspace.holdout) {
            if arm != .holdout {
                report(
                    .wrongAssignment, event,
                    "\(event.kind) in the \(armName) arm, but \(unitName) is in the holdout.")
            }
            return
        }
        if arm == .holdout {
            report(
                .wrongAssignment, event,
                "\(event.kind) in the holdout arm, but \(unitName) is not in the holdout.")
            return
        }
        guard let assigned = assignments.variant(of: campaign, for: unit) else { return }
        if assigned.id != variant.id {
            report(
                .wrongAssignment, event,
                "\(event.kind) for variant \(Quote.text(variant.id)), but assignment gives "
                    + "\(unitName) variant \(Quote.text(assigned.id)) of campaign \(Quote.text(campaign.id)).")
        } else if arm != (variant.isControl ? .control : .treatment) {
            report(
                .wrongAssignment, event,
                "\(event.kind) in the \(armName) arm, but variant \(Quote.text(variant.id)) is "
                    + (variant.isControl ? "a control." : "a treatment."))
        }
    }

    /// `offer_without_grant`: an offer renders only with a grant issued for its campaign and variant
    /// (contract, SDK's side).
    mutating func checkGrant(_ event: CheckedEvent, _ campaign: Campaign, _ variant: Variant) {
        guard event.isOne(of: .exposure, .served), variant.componentType == .offer else { return }
        if let customerID = event.customerID, grantIssued(customerID, campaign.id, variant.id) { return }
        report(
            .offerWithoutGrant, event,
            sentence: .offerShownWithoutGrant(
                type: event.type, campaignID: campaign.id, variantID: variant.id, customerID: event.customerID))
    }

    /// `offer_without_grant` for a purchase's claimed campaign and variant: the event must name a customer who was
    /// issued a grant for them. `subject` opens the sentence ("purchase claims …"); it is only built for a
    /// violation, since almost every offer has its grant.
    private mutating func requireGrant(
        _ event: CheckedEvent, _ campaignID: String, _ variantID: String, subject: @autoclosure () -> String
    ) {
        guard let customerID = event.customerID else {
            report(
                .offerWithoutGrant, event, "\(subject()) but names no customer, and grants are issued to customers.")
            return
        }
        if !grantIssued(customerID, campaignID, variantID) {
            report(
                .offerWithoutGrant, event,
                "\(subject()), but no grant for it was issued to customer \(Quote.text(customerID)).")
        }
    }

    /// Whether the configuration's `previews` pin `token` to this campaign and variant (contract §4).
    private func isPinned(_ token: String, _ campaignID: String, _ variantID: String) -> Bool {
        let previews = workspace.config["previews"]?.arrayValue ?? []
        return previews.contains {
            $0["token"]?.stringValue == token && $0["campaignID"]?.stringValue == campaignID
                && $0["variantID"]?.stringValue == variantID
        }
    }
}
