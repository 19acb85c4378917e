/// `/_mock/faults`: add, list and clear injected fault rules (contract §8).
enum FaultRoutes {
    static func register(on router: inout Router, engine: FaultEngine) {}
}
