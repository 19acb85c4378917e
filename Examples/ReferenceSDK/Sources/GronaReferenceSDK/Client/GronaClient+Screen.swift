/// A screen command the SDK refused (service protocol: 409), with a sentence saying why.
public struct RefusedCommand: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension GronaClient {
    /// Starts a visit of a screen: a new `visitID`, nothing on screen, the configuration in use now applies.
    public func startVisit(screen: Screen, basket: Basket?) -> String {
        visitCounter += 1
        let id = "v-\(visitCounter)-" + String(sessionID.suffix(8))
        let configuration = store.current?.configuration ?? Configuration(emptyFor: options.workspaceKey)
        visit = Visit(id: id, screen: screen, basket: basket ?? Basket(), configuration: configuration)
        return id
    }

    /// Decides what each slot shows, by priority across all of them under the per-screen cap, and logs
    /// `eligible` for each decided campaign and `served` for content handed to the screen. A slot already
    /// decided in this visit shows what it was decided to show.
    public func render(_ slots: [SlotID]) async throws(RefusedCommand) -> [RenderedSlot] {
        guard var visit else { throw RefusedCommand("no visit: send visit before render") }
        let decider = Decider(
            configuration: visit.configuration, killed: visit.killed, nowMs: nowMs,
            context: TargetingContext(screen: visit.screen, basket: visit.basket, identified: grants.customerID != nil),
            installID: options.installID, customerID: grants.customerID, grants: grants,
            previewToken: options.previewToken, mutation: mutation)
        var fresh: [(SlotID, Decision)] = []
        for slot in slots where visit.slots[slot] == nil {
            visit.slotOrder.append(slot)
            visit.slots[slot] = .empty
            if let decision = decider.decide(slot.placement) { fresh.append((slot, decision)) }
        }
        fresh.sort { Decision.ranks($0.1.campaign, before: $1.1.campaign, mutation: mutation) }
        let cap = visit.configuration.maxComponentsPerScreen
        var events: [JSONObject] = []
        for (slot, decision) in fresh {
            if decision.content != nil {
                // Past the cap, lower priorities yield: the slot shows nothing and logs nothing.
                guard visit.slotsShowing < cap || mutation == .ignorePerScreenCap else { continue }
                visit.slots[slot] = .showing(decision)
            } else {
                visit.slots[slot] = .armOnly(decision)
            }
            if visit.firstTime(.eligible, slot) { events.append(placementEvent(.eligible, decision, slot, visit)) }
            if decision.content != nil, visit.firstTime(.served, slot) {
                events.append(placementEvent(.served, decision, slot, visit))
            }
        }
        self.visit = visit
        for event in events { await log(event) }
        return slots.map { RenderedSlot(slot: $0, content: self.visit?.slots[$0]?.showingContent) }
    }

    /// What is on screen now: every slot rendered in this visit, in render order.
    public func onScreen() -> [RenderedSlot] {
        guard let visit else { return [] }
        return visit.slotOrder.map { RenderedSlot(slot: $0, content: visit.slots[$0]?.showingContent) }
    }

    /// The slot's anchor became visible: `anchor_visible` for a decided campaign (in every arm), and `exposure`
    /// when it shows content. Each once per visit.
    public func anchorVisible(_ slot: SlotID) async {
        guard var visit, let state = visit.slots[slot] else { return }
        var events: [JSONObject] = []
        switch state {
        case .showing(let decision):
            if visit.firstTime(.anchorVisible, slot) {
                events.append(placementEvent(.anchorVisible, decision, slot, visit))
            }
            if visit.firstTime(.exposure, slot) || mutation == .repeatExposure {
                events.append(placementEvent(.exposure, decision, slot, visit))
            }
        case .armOnly(let decision):
            if visit.firstTime(.anchorVisible, slot) {
                events.append(placementEvent(.anchorVisible, decision, slot, visit))
            }
        case .empty, .withdrawn:
            break
        }
        self.visit = visit
        for event in events { await log(event) }
    }

    /// The user acted on the content's call to action: `action` with what it did and `result`. Only for content
    /// served in this visit and still on screen.
    public func act(_ slot: SlotID, result: ActionResult) async throws(RefusedCommand) {
        let decision = try servedDecision(slot)
        guard let content = decision.content ?? (mutation == .actionWithoutServed ? Content.none : nil),
            var action = ActionDescription.of(content, key: slot.key)
        else { throw RefusedCommand("the content on \(slot.placement.rawValue) has no call to action") }
        action["result"] = .string(result.rawValue)
        guard let visit else { return }
        var event = placementEvent(.action, decision, slot, visit)
        event["action"] = .object(action)
        await log(event)
    }

    /// The user dismissed the content: `dismiss`, and the content leaves the screen.
    public func dismiss(_ slot: SlotID) async throws(RefusedCommand) {
        let decision = try servedDecision(slot)
        guard var visit else { return }
        let event = placementEvent(.dismiss, decision, slot, visit)
        if visit.slots[slot]?.isShowing == true { visit.slots[slot] = .withdrawn(decision) }
        self.visit = visit
        await log(event)
    }

    /// The decision whose content is on screen in `slot`; `action` and `dismiss` are only for served content.
    private func servedDecision(_ slot: SlotID) throws(RefusedCommand) -> Decision {
        switch visit?.slots[slot] {
        case .showing(let decision)?: return decision
        case .armOnly(let decision)? where mutation == .actionWithoutServed: return decision
        default: throw RefusedCommand("nothing is on screen on \(slot.placement.rawValue)")
        }
    }

    /// A placement event (contract §7): the common fields, then the slot's and the decision's.
    func placementEvent(_ type: EventType, _ decision: Decision, _ slot: SlotID, _ visit: Visit) -> JSONObject {
        var object = eventHeader(type)
        object["placement"] = .string(slot.placement.rawValue)
        object["screen"] = visit.screen.json
        object["key"] = .optionalString(slot.key)
        object["visitID"] = .string(visit.id)
        object["campaignID"] = .string(decision.campaign.id)
        object["variantID"] = .string(decision.variantID)
        object["arm"] = .string(decision.arm.rawValue)
        if let token = decision.previewToken { object["preview"] = .string(token) }
        return object
    }
}

extension SlotState {
    var showingContent: SlotContent? {
        if case .showing(let decision) = self { return decision.slotContent }
        return nil
    }
}
