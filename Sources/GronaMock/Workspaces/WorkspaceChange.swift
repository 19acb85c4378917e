/// One change to what is served under a workspace key, as the registry applied it: the kill log, the clearing
/// of an expired clone's run and other listeners learn of every change this way, in the order the changes
/// were applied, at the moment they were applied, whatever made them (a control request, a file edit, a
/// reset, an expiry or another instance on the same database).
package struct WorkspaceChange: Sendable {
    /// What made the change.
    package enum Cause: Sendable, Equatable {
        /// `PUT /_mock/workspaces/{key}`.
        case replaced
        case killed(campaign: String)
        case revived(campaign: String)
        case rotated(WorkspaceRegistry.KeyRole)
        /// A clone of `source` was made under this key.
        case cloned(from: String)
        /// The file was loaded (at start, or after an edit); `path` is the file.
        case fileLoaded(path: String)
        /// The file is gone, so the workspace is no longer served.
        case fileRemoved(path: String)
        /// A reset put the file back, or removed a clone (a reset of one workspace or of all).
        case reset
        /// `DELETE /_mock/workspaces/{key}` removed the clone.
        case removed
        /// The clone's time to live passed.
        case expired
        /// Another instance on the same database made the change.
        case shared(RuntimeChange.Kind)
    }

    package let workspaceKey: String
    package let cause: Cause
    /// What is served under the key after the change; nil when nothing is.
    package let served: WorkspaceRegistry.Entry?
    /// The mock's clock when the change was applied (Unix epoch milliseconds).
    package let at: Int64
}
