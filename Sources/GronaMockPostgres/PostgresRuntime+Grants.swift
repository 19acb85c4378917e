import GronaMock

/// The grants instances on one database issued (issue 15), in `issued_grants`: so that an offer shown on
/// one instance, whose grant another issued, is no `offer_without_grant` (docs/scaling.md).
extension PostgresRuntime {
    /// How many grant rows one read adopts at most; a full page is followed by another read.
    static let grantPage = 10_000

    /// What one read of `issued_grants` found.
    struct GrantPage {
        var entries: [GrantLog.Issued] = []
        /// The highest seq read (the one before when nothing was).
        var last: Int64
        var full = false
    }

    /// Stores one batch of grants issued here, in one transaction under `grantLock` (seq order is commit
    /// order, so a reader that saw seq N misses no lower one later), and tells the other instances at COMMIT.
    /// Grants already stored, by any instance, are left as they are.
    static func write(_ batch: [GrantLog.Issued], instance: String, _ pool: PostgresPool) throws(PostgresError) {
        var workspace = PostgresArray(of: .bytea)
        var customer = PostgresArray(of: .bytea)
        var campaign = PostgresArray(of: .bytea)
        var variant = PostgresArray(of: .bytea)
        for entry in batch {
            workspace.append(entry.workspace)
            customer.append(entry.customerID)
            campaign.append(entry.campaignID)
            variant.append(entry.variantID)
        }
        var lock = PostgresBinds()
        lock.append(grantLock)
        var rows = PostgresBinds()
        rows.append(workspace)
        rows.append(customer)
        rows.append(campaign)
        rows.append(variant)
        rows.append(instance)
        try pool.withWriter { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) in
                try connection.run(prepared: "grant_lock", "SELECT pg_advisory_xact_lock($1)", lock)
                try connection.run(
                    prepared: "grant_insert",
                    """
                    INSERT INTO issued_grants (workspace_key, customer_id, campaign_id, variant_id, instance)
                    SELECT w, c, g, v, $5 FROM unnest($1::bytea[], $2::bytea[], $3::bytea[], $4::bytea[])
                        AS batch (w, c, g, v)
                    ON CONFLICT DO NOTHING
                    """, rows)
                try connection.execute("SELECT pg_notify('\(Channel.grants.rawValue)', '')")
            }
        }
    }

    /// Deletes the stored grants of `workspace` (every one: nil) and records the clear for the other
    /// instances, in one transaction under `grantLock`, so that a grant stored after it is not taken.
    func clearGrants(_ workspace: String?) throws(PostgresError) {
        var lock = PostgresBinds()
        lock.append(Self.grantLock)
        var row = PostgresBinds()
        row.append(instance)
        row.append(workspace)
        try pool.withWriter { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) in
                try connection.run(prepared: "grant_lock", "SELECT pg_advisory_xact_lock($1)", lock)
                try connection.run(
                    prepared: "grant_clear",
                    """
                    WITH cleared AS (
                        DELETE FROM issued_grants WHERE $2::bytea IS NULL OR workspace_key = $2 RETURNING 1)
                    INSERT INTO grant_clears (instance, workspace_key) VALUES ($1, $2)
                    """, row)
                // A clear of everything supersedes the clears before it.
                if workspace == nil {
                    try connection.execute(
                        """
                        DELETE FROM grant_clears WHERE seq < (SELECT max(seq) FROM grant_clears
                            WHERE workspace_key IS NULL)
                        """)
                }
                try connection.execute("SELECT pg_notify('\(Channel.grants.rawValue)', '')")
            }
        }
    }

    /// The clears other instances recorded after `seq`, in order: each its seq and workspace (nil: every one).
    func readGrantClears(after seq: Int64, _ connection: PostgresConnection) throws(PostgresError) -> [(
        Int64, String?
    )] {
        var binds = PostgresBinds()
        binds.append(seq)
        binds.append(instance)
        let rows = try connection.run(
            prepared: "grant_clears_after",
            "SELECT seq, workspace_key FROM grant_clears WHERE seq > $1 AND instance <> $2 ORDER BY seq", binds)
        return (0..<rows.rowCount).map { (rows.int64($0, 0), rows.text($0, 1)) }
    }

    /// The grants stored after `seq`, in seq order, at most `grantPage`: this instance's own too, so that
    /// one it issued just as another instance cleared its workspace, cleared here but stored after the
    /// clear, comes back.
    func readGrants(after seq: Int64, _ connection: PostgresConnection) throws(PostgresError) -> GrantPage {
        var binds = PostgresBinds()
        binds.append(seq)
        binds.append(Int64(Self.grantPage))
        let rows = try connection.run(
            prepared: "grants_after",
            """
            SELECT seq, workspace_key, customer_id, campaign_id, variant_id FROM issued_grants
            WHERE seq > $1 ORDER BY seq LIMIT $2
            """, binds)
        var page = GrantPage(last: seq)
        page.full = rows.rowCount >= Self.grantPage
        page.entries.reserveCapacity(rows.rowCount)
        for row in 0..<rows.rowCount {
            page.last = max(page.last, rows.int64(row, 0))
            page.entries.append(
                GrantLog.Issued(
                    workspace: rows.text(row, 1) ?? "", customerID: rows.text(row, 2) ?? "",
                    campaignID: rows.text(row, 3) ?? "", variantID: rows.text(row, 4) ?? ""))
        }
        return page
    }
}
