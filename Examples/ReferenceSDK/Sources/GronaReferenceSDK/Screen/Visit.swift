/// One slot of a screen: a placement, and a key where the placement repeats (a cart line's product id).
public struct SlotID: Sendable, Hashable {
    public var placement: Placement
    public var key: String?

    public init(placement: Placement, key: String?) {
        self.placement = placement
        self.key = key
    }
}

/// What was decided for one slot in a visit.
public struct Decision: Sendable {
    public var campaign: Campaign
    public var variantID: String
    public var arm: Arm
    /// What the slot shows; nil in the control and holdout arms.
    public var content: Content?
    /// The preview token that pinned this variant, when one did.
    public var previewToken: String?
}

/// A slot's life within one visit. Decided once, at the visit's first render of it: a later render of the same
/// slot shows the same thing, so every change but a kill waits for the next visit.
public enum SlotState: Sendable {
    /// No campaign for it, or its campaign yielded at the per-screen cap.
    case empty
    /// Its content is on screen.
    case showing(Decision)
    /// A campaign was decided in the control or holdout arm: nothing shows, the anchor is still measured.
    case armOnly(Decision)
    /// Its content left the screen (killed, or dismissed): no further events for it in this visit.
    case withdrawn(Decision)

    public var decision: Decision? {
        switch self {
        case .empty: nil
        case .showing(let decision), .armOnly(let decision), .withdrawn(let decision): decision
        }
    }

    public var isShowing: Bool {
        if case .showing = self { return true }
        return false
    }
}

/// A visit of one screen: what it decided and what it logged (service protocol, `visit`).
public struct Visit: Sendable {
    public var id: String
    public var screen: Screen
    public var basket: Basket
    /// The configuration as it was when the visit started: other changes wait for the next visit.
    public var configuration: Configuration
    public var slots: [SlotID: SlotState] = [:]
    /// Slots in the order they were first rendered, for `onScreen`.
    public var slotOrder: [SlotID] = []
    /// Campaigns killed (or no longer listed) since the visit started: never decided again in it.
    public var killed: Set<String> = []
    /// Events already logged, by type and slot: each at most once per visit (contract, SDK's side).
    var logged: Set<LoggedKey> = []

    struct LoggedKey: Hashable {
        var type: EventType
        var slot: SlotID
    }

    public init(id: String, screen: Screen, basket: Basket, configuration: Configuration) {
        self.id = id
        self.screen = screen
        self.basket = basket
        self.configuration = configuration
    }

    /// How many slots hold content now: what the per-screen cap counts.
    public var slotsShowing: Int {
        slots.values.filter(\.isShowing).count
    }

    /// Records that `type` is being logged for `slot`; false when it already was in this visit.
    mutating func firstTime(_ type: EventType, _ slot: SlotID) -> Bool {
        logged.insert(LoggedKey(type: type, slot: slot)).inserted
    }
}

/// What a slot shows, as the service protocol's slot content has it.
public struct SlotContent: Sendable {
    public var campaignID: String
    public var variantID: String
    public var kind: Content.Kind
    public var type: String
    public var isPreview: Bool
    public var body: JSON
}

/// One slot's answer to `render` and `onScreen`.
public struct RenderedSlot: Sendable {
    public var slot: SlotID
    public var content: SlotContent?
}

extension Decision {
    var slotContent: SlotContent? {
        content.map {
            SlotContent(
                campaignID: campaign.id, variantID: variantID, kind: $0.kind, type: $0.typeName,
                isPreview: previewToken != nil, body: $0.body)
        }
    }

    /// Higher priority first, then configuration order (service protocol, "Deciding"); `wrong-priority-order`
    /// turns the priority around.
    static func ranks(_ left: Campaign, before right: Campaign, mutation: Mutation?) -> Bool {
        if left.priority != right.priority {
            return mutation == .wrongPriorityOrder ? left.priority < right.priority : left.priority > right.priority
        }
        return left.index < right.index
    }
}
