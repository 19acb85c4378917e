import GronaMock

/// One visit of a simulated shopper to one screen, as the SDK logs it (contract §4–§7): for each placement of
/// the screen, the highest-priority live, scheduled campaign whose targeting matches; assignment with the
/// holdout first (§5); `eligible` and `anchor_visible`, then in the treatment arm `exposure` and `served` (an
/// offer only with a verified grant, at most `maxComponentsPerScreen` shown), then `action` or `dismiss`, each
/// at most once in the visit. On the order confirmation screen, a purchase first, with the treatments of the
/// grants applied.
struct VisitSimulator {
    let encoder: EventEncoder
    let catalogue: Catalogue
    /// Whether offers may be shown at all (grants need the secret key).
    let offersEnabled: Bool

    /// Logs the visit's events into `install.pending`; returns how many.
    func visit(
        _ install: inout InstallState, index: Int, config: FleetConfig, timestamp: Int64,
        random: inout SplitMix64
    ) -> Int {
        var screen = ScreenMix.draw(&random)
        if (screen == .orderConfirmation || screen == .checkout || screen == .cart) && install.basket.isEmpty {
            screen = .product
        }
        install.visits &+= 1
        var frame = encoder.frame(install: index, visit: install.visits, timestamp: timestamp)
        frame.customer = install.customerID.map(JSONBytes.quoted) ?? []
        frame.demo = config.demoMode
        frame.revision = config.revision
        var context = TargetingContext(screen: screen, identified: install.customerID != nil)
        var logged = 0

        switch screen {
        case .product:
            let product = random.below(catalogue.products.count)
            context.screenID = catalogue.products[product].id
            if install.basket.count < 30 && random.chance(0.5) { install.basket.append(UInt16(product)) }
        case .category:
            context.screenID = catalogue.categoryIDs[random.below(catalogue.categoryIDs.count)]
        case .other:
            context.screenID = catalogue.otherScreens[random.below(catalogue.otherScreens.count)]
        case .orderConfirmation:
            let applied = install.grants.filter { install.servedOffers.contains($0.campaignID) }
            context.treatments = applied.map(\.treatment.type)
            logged += purchase(&install, frame: frame, applied: applied)
            install.basket.removeAll(keepingCapacity: true)
            install.servedOffers.removeAll(keepingCapacity: true)
        default:
            break
        }
        context.basketProductIDs = install.basket.map { catalogue.products[Int($0)].id }
        context.basketTotalMinor = install.basket.reduce(0) { $0 + catalogue.products[Int($1)].priceMinor }
        frame.screen = Self.screenJSON(context)

        let now = timestamp / 1000
        var shown = 0
        for placement in screen.placements {
            guard let campaignIndex = winner(on: placement, config: config, context: context, now: now) else {
                continue
            }
            let campaign = config.campaigns[campaignIndex]
            guard let (variantIndex, arm) = assignment(&install, index: index, campaignIndex, config: config) else {
                continue
            }
            let variant = campaign.variants[variantIndex]
            let key = placement == .cartLine ? install.basket.first.map { catalogue.products[Int($0)].idJSON } : nil
            if placement == .cartLine && key == nil { continue }
            var offset: Int64 = 0
            func log(_ type: EventType, action: [UInt8]? = nil, result: ActionResult? = nil) {
                encoder.appendPlacementEvent(
                    type, counter: install.nextCounter, frame: frame, offset: offset, campaign: campaign,
                    variant: variant, arm: arm, key: key, action: action, result: result, into: &install.pending)
                install.nextCounter &+= 1
                install.pendingEnds.append(install.pending.count)
                offset += 1
                logged += 1
            }
            log(.eligible)
            log(.anchorVisible)
            guard arm == .treatment, shown < config.maxComponentsPerScreen, canShow(variant, campaign, install)
            else { continue }
            shown += 1
            log(.exposure)
            log(.served)
            if variant.content.isOffer { install.servedOffers.append(campaign.id) }
            let roll = random.unit()
            if roll < 0.3, let action = action(of: variant, key: key, install: install) {
                log(.action, action: action, result: random.chance(0.95) ? .accepted : .rejected)
            } else if roll < 0.5 {
                log(.dismiss)
            }
        }
        return logged
    }

    /// The highest-priority campaign that wants `placement` on this visit (the first listed wins a tie).
    /// By index, reading each campaign in place: `for campaign in campaigns` copies each one out, retaining
    /// and releasing its strings and arrays, for every placement of every visit (10% of a profile).
    private func winner(on placement: Placement, config: FleetConfig, context: TargetingContext, now: Int64) -> Int? {
        var best: Int?
        var bestPriority = Int64.min
        config.campaigns.withUnsafeBufferPointer { campaigns in
            for index in campaigns.indices where campaigns[index].placement == placement {
                guard best == nil || campaigns[index].priority > bestPriority, campaigns[index].isActive(at: now),
                    campaigns[index].unit == .install || context.identified,
                    campaigns[index].targeting?.matches(context) ?? true
                else { continue }
                best = index
                bestPriority = campaigns[index].priority
            }
        }
        return best
    }

    /// The unit's variant and arm (contract §5), cached per install for the configuration in hand. A service
    /// may change its campaigns without bumping the revision, so a cached index is checked against the variants
    /// before it is used.
    private func assignment(
        _ install: inout InstallState, index: Int, _ campaignIndex: Int, config: FleetConfig
    ) -> (Int, Arm)? {
        if install.assignmentRevision != config.revision || install.assignmentCampaignCount != config.campaigns.count {
            install.assignments.removeAll()
            install.assignmentRevision = config.revision
            install.assignmentCampaignCount = config.campaigns.count
        }
        let campaign = config.campaigns[campaignIndex]
        if campaign.unit == .customer && install.customerID == nil { return nil }
        var cached = install.assignments[campaignIndex]
        if case .variant(let variant, _) = cached, !campaign.variants.indices.contains(variant) { cached = nil }
        if cached == nil {
            let unit = campaign.unit == .customer ? install.customerID ?? "" : encoder.installID(index)
            if let variant = campaign.variantIndex(for: unit) {
                cached = .variant(variant, heldOut: Assignment.isHeldOut(unit, by: config.holdout))
            } else {
                cached = CachedAssignment.none
            }
            install.assignments[campaignIndex] = cached
        }
        guard case .variant(let variant, let heldOut)? = cached else { return nil }
        if heldOut { return (variant, .holdout) }
        return (variant, campaign.variants[variant].isControl ? .control : .treatment)
    }

    /// Whether the SDK can render the variant: not an unknown decision type, and an offer only with a grant
    /// that matches its campaign, variant and treatment (contract §6).
    private func canShow(_ variant: FleetVariant, _ campaign: FleetCampaign, _ install: InstallState) -> Bool {
        switch variant.content {
        case .control, .unknown: return false
        case .decision: return true
        case .component(let kind, _, let treatment):
            guard kind == .offer else { return true }
            guard offersEnabled else { return false }
            return install.grants.contains {
                $0.campaignID == campaign.id && $0.variantID == variant.id && $0.treatment == treatment
            }
        }
    }

    private func action(of variant: FleetVariant, key: [UInt8]?, install: InstallState) -> [UInt8]? {
        switch variant.content {
        case .component(_, let action, _): return action
        case .decision(_, let action, let substitutes):
            guard let key else { return action }
            let productID = String(decoding: key.dropFirst().dropLast(), as: UTF8.self)
            return substitutes[productID]
        case .control, .unknown: return nil
        }
    }

    private func purchase(_ install: inout InstallState, frame: EncoderFrame, applied: [HeldGrant]) -> Int {
        var products: [UInt8] = [UInt8(ascii: "[")]
        var total: Int64 = 0
        for (position, product) in install.basket.enumerated() {
            if position > 0 { products.append(UInt8(ascii: ",")) }
            products += catalogue.products[Int(product)].idJSON
            total += catalogue.products[Int(product)].priceMinor
        }
        products.append(UInt8(ascii: "]"))
        var treatments: [UInt8] = [UInt8(ascii: "[")]
        for (position, grant) in applied.enumerated() {
            if position > 0 { treatments.append(UInt8(ascii: ",")) }
            treatments += Array("{\"campaignID\":".utf8) + JSONBytes.quoted(grant.campaignID)
            treatments += Array(",\"variantID\":".utf8) + JSONBytes.quoted(grant.variantID)
            treatments += Array(",\"placement\":".utf8) + JSONBytes.quoted(grant.placement)
            treatments += Array(",\"type\":".utf8) + JSONBytes.quoted(grant.treatment.type.rawValue)
            treatments += Array(",\"valueMilli\":\(grant.treatment.valueMilli)}".utf8)
        }
        treatments.append(UInt8(ascii: "]"))
        var orderID: [UInt8] = [UInt8(ascii: "\"")]
        orderID += encoder.runTag
        orderID += Array("-order-\(frame.install)-\(install.nextCounter)\"".utf8)
        encoder.appendPurchase(
            counter: install.nextCounter, frame: frame, orderID: orderID, totalMinor: total, productIDs: products,
            treatments: treatments, into: &install.pending)
        install.nextCounter &+= 1
        install.pendingEnds.append(install.pending.count)
        return 1
    }

    private static func screenJSON(_ context: TargetingContext) -> [UInt8] {
        var bytes = Array("{\"type\":\"".utf8) + Array(context.screen.rawValue.utf8) + [UInt8(ascii: "\"")]
        switch context.screen {
        case .product, .category:
            if let id = context.screenID { bytes += Array(",\"id\":".utf8) + JSONBytes.quoted(id) }
        case .other:
            if let name = context.screenID { bytes += Array(",\"name\":".utf8) + JSONBytes.quoted(name) }
        case .orderConfirmation where !context.treatments.isEmpty:
            bytes += Array(",\"treatments\":[".utf8)
            bytes += Array(
                context.treatments.map { JSONBytes.quoted($0.rawValue) }.joined(separator: [UInt8(ascii: ",")]))
            bytes.append(UInt8(ascii: "]"))
        default:
            break
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}

typealias EncoderFrame = EventEncoder.VisitFrame
