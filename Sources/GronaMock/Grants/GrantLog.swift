import GronaMockPlatform

/// Which grants the server has issued, per workspace and customer: the SDK contract checks ask whether an
/// offer was shown, or a treatment claimed, without a grant behind it.
///
/// It listens to the engine's event stream: each `IssuedGrants` is recorded, and what `record` returns as new
/// is what the cluster shares (issue 15), as `onClear` hears each clear (a reset); `adopt` and `forget` apply
/// what other instances issued and cleared without handing it on again, so that the check answers alike
/// whichever instance is asked.
package final class GrantLog: Sendable {
    package struct Issued: Hashable, Sendable {
        package let workspace: String
        package let customerID: String
        package let campaignID: String
        package let variantID: String

        package init(workspace: String, customerID: String, campaignID: String, variantID: String) {
            self.workspace = workspace
            self.customerID = customerID
            self.campaignID = campaignID
            self.variantID = variantID
        }
    }

    /// A grant within its workspace's set.
    private struct Grant: Hashable {
        let customerID: String
        let campaignID: String
        let variantID: String
    }

    /// By workspace, so that clearing one (a clone deleted, reset or expired) is one removal, whatever the
    /// number of workspaces and grants.
    private let issued = Mutex<[String: Set<Grant>]>([:])
    package init() {}

    /// Records the grants of one answer; returns those not in the log yet (which the cluster shares).
    @discardableResult
    package func record(_ grants: IssuedGrants) -> [Issued] {
        insert(
            grants.grants.map {
                Issued(
                    workspace: grants.workspace, customerID: grants.customerID, campaignID: $0.campaignID,
                    variantID: $0.variantID)
            })
    }

    /// Records grants issued here; returns those that were not in the log yet.
    @discardableResult
    package func record(_ entries: [Issued]) -> [Issued] {
        insert(entries)
    }

    /// Adds what another instance issued; it is not shared again.
    package func adopt(_ entries: [Issued]) {
        _ = insert(entries)
    }

    /// Inserts `entries`; returns those that were not in the log yet.
    private func insert(_ entries: [Issued]) -> [Issued] {
        issued.withLock { byWorkspace in
            entries.filter {
                byWorkspace[$0.workspace, default: []].insert(
                    Grant(customerID: $0.customerID, campaignID: $0.campaignID, variantID: $0.variantID)
                ).inserted
            }
        }
    }

    package func wasIssued(workspace: String, customerID: String, campaignID: String, variantID: String? = nil) -> Bool
    {
        issued.withLock { byWorkspace in
            guard let grants = byWorkspace[workspace] else { return false }
            // With the variant named (every violation check), a hash lookup: a walk over every grant issued
            // made the check over a load test's events grow with events times grants (issue 18).
            if let variantID {
                return grants.contains(Grant(customerID: customerID, campaignID: campaignID, variantID: variantID))
            }
            return grants.contains { $0.customerID == customerID && $0.campaignID == campaignID }
        }
    }

    /// Forgets the grants of `workspace` (every grant: nil), here and, through the clear listener, on every
    /// instance.
    package func clear(workspace: String? = nil) {
        forget(workspace: workspace)
        onCleared.withLock { $0 }?.call(workspace)
    }

    /// Hears of every clear, to tell the other instances (`SharedRuntime.publish(grantsCleared:)`), off the
    /// event loops (clears come from the control API).
    package func onClear(_ listener: @escaping @Sendable (String?) -> Void) {
        onCleared.withLock { $0 = ClearListener(call: listener) }
    }

    private struct ClearListener: Sendable {
        let call: @Sendable (String?) -> Void
    }

    private let onCleared = Mutex<ClearListener?>(nil)

    /// Forgets what another instance cleared; it is not handed to the clear listener.
    package func forget(workspace: String?) {
        issued.withLock { byWorkspace in
            if let workspace { byWorkspace[workspace] = nil } else { byWorkspace.removeAll() }
        }
    }
}
