import GronaMockHTTP
import GronaMockJSON

/// Which grants the server has issued, per workspace and customer: the SDK contract checks ask whether an
/// offer was shown, or a treatment claimed, without a grant behind it.
package final class GrantLog: Sendable {
    package struct Issued: Hashable, Sendable {
        package let workspace: String
        package let customerID: String
        package let campaignID: String
        package let variantID: String
    }

    private let issued = Mutex<Set<Issued>>([])
    private let onIssued: @Sendable (Int) -> Void

    /// `onIssued` hears how many grants each answer handed out (the metrics count them).
    package init(onIssued: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.onIssued = onIssued
    }

    func record(_ claims: [GrantClaims]) {
        onIssued(claims.count)
        issued.withLock { set in
            for claim in claims {
                set.insert(
                    Issued(
                        workspace: claim.audience, customerID: claim.subject, campaignID: claim.campaignID,
                        variantID: claim.variantID))
            }
        }
    }

    package func wasIssued(workspace: String, customerID: String, campaignID: String, variantID: String? = nil) -> Bool
    {
        issued.withLock { set in
            // With the variant named (every violation check), a hash lookup: a walk over every grant issued
            // made the check over a load test's events grow with events times grants (issue 18).
            if let variantID {
                return set.contains(
                    Issued(workspace: workspace, customerID: customerID, campaignID: campaignID, variantID: variantID))
            }
            return set.contains {
                $0.workspace == workspace && $0.customerID == customerID && $0.campaignID == campaignID
            }
        }
    }

    package func clear(workspace: String? = nil) {
        issued.withLock { set in
            if let workspace { set = set.filter { $0.workspace != workspace } } else { set.removeAll() }
        }
    }
}
