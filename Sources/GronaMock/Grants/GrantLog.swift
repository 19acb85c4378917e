import GronaMockPlatform

/// Which grants the server has issued, per workspace and customer: the SDK contract checks ask whether an
/// offer was shown, or a treatment claimed, without a grant behind it.
///
/// Instances on one database share it (issue 15): `onNewlyIssued` hands the shared runtime each entry the
/// first time this instance issues it, and `onCleared` each clear (a reset); `adopt` and `forget` apply
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
    private let onIssued: @Sendable (Int) -> Void
    private let onNewlyIssued: @Sendable ([Issued]) -> Void
    private let onCleared: @Sendable (String?) -> Void

    /// `onIssued` hears how many grants each answer handed out (the metrics count them); `onNewlyIssued` the
    /// entries that were not in the log yet, called outside the lock (`SharedRuntime.publish(grants:)`, which
    /// must not wait for a database: the grants endpoint answers on an event loop); `onCleared` each clear,
    /// also outside the lock (`SharedRuntime.publish(grantsCleared:)`; clears come from the control API, off
    /// the event loops).
    package init(
        onIssued: @escaping @Sendable (Int) -> Void = { _ in },
        onNewlyIssued: @escaping @Sendable ([Issued]) -> Void = { _ in },
        onCleared: @escaping @Sendable (String?) -> Void = { _ in }
    ) {
        self.onIssued = onIssued
        self.onNewlyIssued = onNewlyIssued
        self.onCleared = onCleared
    }

    func record(_ claims: [GrantClaims]) {
        onIssued(claims.count)
        record(
            claims.map {
                Issued(
                    workspace: $0.audience, customerID: $0.subject, campaignID: $0.campaignID, variantID: $0.variantID)
            })
    }

    /// Records grants issued here; those not in the log yet go to `onNewlyIssued`, after the lock is released.
    package func record(_ entries: [Issued]) {
        let added = insert(entries)
        if !added.isEmpty { onNewlyIssued(added) }
    }

    /// Adds what another instance issued; it is not handed to `onNewlyIssued`, which would publish it again.
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

    /// Forgets the grants of `workspace` (every grant: nil), here and, through `onCleared`, on every instance.
    package func clear(workspace: String? = nil) {
        forget(workspace: workspace)
        onCleared(workspace)
    }

    /// Forgets what another instance cleared; it is not handed to `onCleared`.
    package func forget(workspace: String?) {
        issued.withLock { byWorkspace in
            if let workspace { byWorkspace[workspace] = nil } else { byWorkspace.removeAll() }
        }
    }
}
