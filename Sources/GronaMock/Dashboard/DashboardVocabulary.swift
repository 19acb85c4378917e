import GronaMockJSON

/// `/_mock/ui/vocabulary.json`: the names the page offers in its forms and draws in its views, made from the
/// engine's own enums, so the dashboard never keeps a second copy of a vocabulary that could drift (a fault
/// kind added here shows in the form without touching the page; the funnels draw the arms of contract §5 and
/// the steps `EventFunnels` counts; the live view suggests the event types). Names only, as docs/faults.md
/// lists them: no data, so it is public like the page's other files.
enum DashboardVocabulary {
    static var json: JSONValue {
        let targets = [FaultRule.Target.all] + FaultEngine.Endpoint.allCases.map(FaultRule.Target.endpoint)
        return [
            "faultEndpoints": .array(targets.map { .string($0.name) }),
            "faultKinds": .array(
                FaultKind.allCases.map { kind in
                    [
                        "kind": .string(kind.rawValue),
                        "endpoint": kind.onlyEndpoint.map { .string($0.rawValue) } ?? .null,
                        "parameters": .array(kind.parameters.map(JSONValue.string)),
                    ]
                }),
            "faultCommonParameters": .array(FaultRule.commonParameters.map(JSONValue.string)),
            "eventTypes": .array(EventType.allCases.map { .string($0.rawValue) }),
            "arms": .array(Arm.allCases.map { .string($0.rawValue) }),
            // The arm of a variant by its `control` flag (contract §5), and the two arms every funnel compares.
            "treatmentArm": .string(Arm.treatment.rawValue),
            "controlArm": .string(Arm.control.rawValue),
            "killedStatus": .string(Campaign.Status.killed.rawValue),
            "funnelSteps": .array(EventFunnels.steps.map { .string($0.rawValue) }),
            // The step the funnel's purchases (each row's `purchases`) are drawn as, after the steps.
            "funnelPurchases": .string(EventType.purchase.rawValue),
            "funnelConversion": [
                "from": .string(EventFunnels.conversion.from.rawValue),
                "to": .string(EventFunnels.conversion.to.rawValue),
            ],
        ]
    }
}
