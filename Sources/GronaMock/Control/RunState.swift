import GronaMockPlatform

/// What a test run leaves on a shared server besides its workspace: its fault rules, its grant log and its
/// stored events. Cleared together when one workspace is reset.
struct RunState: Sendable {
    let events: EventStore
    let faults: FaultEngine
    let grants: GrantLog

    struct Cleared: Sendable {
        var faults: Int
        var events: Int
    }

    /// Clears `key`'s run state; `completion` runs once its events (and rejected events) are deleted.
    func clear(_ key: String, completion: @escaping @Sendable (Result<Cleared, StorageError>) -> Void) {
        let removedFaults: Int
        do {
            removedFaults = try faults.clear(workspace: key)
        } catch {
            return completion(.failure(error))
        }
        grants.clear(workspace: key)
        guard let writer = events.writer else { return completion(.success(Cleared(faults: removedFaults, events: 0))) }
        writer.submit(
            .delete(workspaceKey: key) { result in
                completion(result.map { Cleared(faults: removedFaults, events: $0) })
            })
    }
}
