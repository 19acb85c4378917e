import GronaMockJSON

/// `/_mock/ui/vocabulary.json`: the names the page offers in its forms and draws in its views, made from the
/// engine's own enums, so the dashboard never keeps a second copy of a vocabulary that could drift (a fault
/// kind added here shows in the form without touching the page; the funnels draw the arms of contract §5 and
/// the steps `EventFunnels` counts). Names only, as docs/faults.md lists them: no data, so it is public like
/// the page's other files.
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
            "arms": .array(Arm.allCases.map { .string($0.rawValue) }),
            "funnelSteps": .array(EventFunnels.steps.map { .string($0.rawValue) }),
            "funnelConversion": [
                "from": .string(EventFunnels.conversion.from.rawValue),
                "to": .string(EventFunnels.conversion.to.rawValue),
            ],
        ]
    }
}
