/// `GET /_mock/events/violations?workspace=…`: every breach of the SDK's side of the contract in the stored
/// event stream, with the rule, the events involved and a sentence (contract §8).
enum ViolationRoutes {
    static func register(
        on router: inout Router, store: EventStore, registry: WorkspaceRegistry, grants: GrantLog, clock: ServerClock
    ) {}
}
