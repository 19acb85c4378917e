/// Signing and revisions (contract §4): a workspace's configuration is signed once per content and served
/// byte-identical until it changes; its revision comes from the store, so it never goes back while the
/// database persists, and two writers never hand out one number for different content.
struct ConfigurationRevisions: Sendable {
    let store: any GronaStorage
    let clock: ServerClock

    /// The signed configuration of `workspace` with `keys`: the stored revision when its content is known,
    /// otherwise a new revision signed now. A store that cannot be reached is `.unavailable` (a 503 that
    /// asking again may cure), any other failure `.failed`.
    func signed(_ workspace: Workspace, keys: KeyStore) throws(WorkspaceRegistry.ChangeError) -> SignedConfiguration {
        let stored: StoredConfigRevision
        do {
            stored = try store.configRevision(
                for: workspace.key, contentHash: ConfigurationSigner.contentHash(for: workspace, keys: keys)
            ) { revision in
                try ConfigurationSigner.sign(workspace, revision: revision, issuedAt: clock.nowSeconds(), keys: keys)
            }
        } catch let error as StorageError {
            throw .unavailable(error)
        } catch {
            throw .failed("could not sign the configuration: \(error)")
        }
        return SignedConfiguration(workspaceKey: workspace.key, stored: stored)
    }
}
