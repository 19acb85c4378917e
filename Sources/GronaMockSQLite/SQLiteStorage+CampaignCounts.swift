import GronaMock

/// The per-campaign counts behind the summary and the funnels (schema 6): `campaign_event_counts` holds the
/// counts of the events up to `campaign_counts_folded.seq`, and the events stored since are counted when read.
///
/// Counting each event in with a trigger cost the writer a row update per event (6 µs), an index over the groups
/// a page rewritten per group per commit (`Schema`, version 6), and grouping the events back out of the table
/// with SQL 1.6 µs per event. So the writer counts each event it stores in memory (`CampaignTally`), and every
/// few thousand events, after a commit's answers are sent, writes the tally's groups into the table: a few
/// hundred rows in a few pages.
///
/// Every event with a sequence at or below the mark is counted in the table, and none above it: a fold moves the
/// mark and the counts in one transaction, and deletes keep it so (`uncountCampaignEvents`, `clampFoldedSQL`).
extension SQLiteStorage {
    /// Events in the tally at which it is folded, and so about the most a summary counts from the events
    /// themselves. A fold writes each group the tally holds (some 170 for the load fleet) whatever the number
    /// of events, so it costs the writer about 0.1 µs per event at this size, and a summary groups at most this
    /// many rows itself (a few milliseconds).
    static let standardCampaignCountsFold: Int64 = 5_000

    /// The counts, plus the events past the mark grouped the same way (found by sequence: a range, about
    /// `campaignCountsFold` rows at most), in one statement and so one snapshot. Only those rows are sorted.
    static let campaignTypeCountsSQL = """
        SELECT campaign_id, variant_id, arm, demo, type, sum(count) FROM (
            SELECT campaign_id, variant_id, arm, demo, type, count FROM campaign_event_counts
            WHERE workspace_key = ?1
            UNION ALL
            SELECT campaign_id, coalesce(variant_id, ''), coalesce(arm, ''), demo, type, count(*) FROM events
            WHERE seq > (SELECT seq FROM campaign_counts_folded) AND workspace_key = ?1 AND campaign_id IS NOT NULL
            GROUP BY 1, 2, 3, 4, 5
        )
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(count) > 0 ORDER BY 1, 2, 3, 5, 4
        """

    /// Counts the events past the mark, up to `?1`, into the table: when the writer's tally is not exact.
    private static let foldSQL: StaticString = """
        INSERT INTO campaign_event_counts
            SELECT workspace_key, campaign_id, coalesce(variant_id, ''), coalesce(arm, ''), demo, type, count(*)
            FROM events WHERE seq > (SELECT seq FROM campaign_counts_folded) AND seq <= ?1 AND campaign_id IS NOT NULL
            GROUP BY 1, 2, 3, 4, 5, 6
            ON CONFLICT DO UPDATE SET count = count + excluded.count
        """

    private static let moveMarkSQL: StaticString = "UPDATE campaign_counts_folded SET seq = ?1"

    /// Takes the counted events up to `?1` off the counts, a group at a time (the events past the mark were
    /// never counted). Only the rows dropped are grouped: those past `--max-events` after a commit.
    private static let uncountSQL: StaticString = """
        UPDATE campaign_event_counts AS counted SET count = counted.count - dropped.events
        FROM (
            SELECT workspace_key, campaign_id, coalesce(variant_id, '') AS variant_id, coalesce(arm, '') AS arm, demo,
                type, count(*) AS events
            FROM events
            WHERE seq <= ?1 AND seq <= (SELECT seq FROM campaign_counts_folded) AND campaign_id IS NOT NULL
            GROUP BY 1, 2, 3, 4, 5, 6
        ) AS dropped
        WHERE counted.workspace_key = dropped.workspace_key AND counted.campaign_id = dropped.campaign_id
            AND counted.variant_id = dropped.variant_id AND counted.arm = dropped.arm
            AND counted.demo = dropped.demo AND counted.type = dropped.type
        """

    /// After a delete: a sequence is not AUTOINCREMENT, so once the newest events are gone SQLite gives their
    /// numbers again, and an event numbered at or below the mark would never be counted. The mark comes down
    /// to the newest event left; every event left at or below it was counted already.
    static let clampFoldedSQL: StaticString = """
        UPDATE campaign_counts_folded SET seq = min(seq, coalesce((SELECT max(seq) FROM events), 0))
        """

    /// Adds one group's count from the writer's tally.
    private static let addGroupSQL: StaticString = """
        INSERT INTO campaign_event_counts (workspace_key, campaign_id, variant_id, arm, type, demo, count)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO UPDATE SET count = count + excluded.count
        """

    /// Writes the tally into the table and moves the mark to the newest event, in a transaction of its own,
    /// once the tally holds `threshold` events; at once when the tally is not exact (after a failed commit, or
    /// at start), counting the events past the mark from the table instead. A fold that fails leaves the
    /// table, the mark and the tally as they were.
    static func foldCampaignCounts(
        _ tally: inout CampaignTally, atLeast threshold: Int64, _ connection: SQLiteConnection
    ) throws(SQLiteError) {
        guard !tally.isValid || (tally.events > 0 && tally.events >= threshold) else { return }
        try connection.execute("BEGIN IMMEDIATE")
        do throws(SQLiteError) {
            let last = try connection.cached("SELECT coalesce(max(seq), 0) FROM events").int64Scalar() ?? 0
            let mark = try connection.cached("SELECT seq FROM campaign_counts_folded").int64Scalar() ?? 0
            // Sequences past the mark are this writer's, one each, unless another process stored events too
            // (or a delete took the newest events and brought the mark down): then the table is counted, which
            // is right whatever happened.
            if tally.isValid && last &- mark == tally.events {
                let add = try connection.cached(addGroupSQL)
                for group in tally.groups {
                    try add.run(
                        group.fields.map(SQLiteValue.text) + [.integer(group.demo ? 1 : 0), .integer(group.count)])
                }
            } else {
                try connection.cached(foldSQL).run([.integer(last)])
            }
            try connection.cached(moveMarkSQL).run([.integer(last)])
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        tally.reset()
    }

    /// Takes the events up to `sequence` off the counts, before they are deleted, within the caller's transaction.
    static func uncountCampaignEvents(through sequence: Int64, _ connection: SQLiteConnection) throws(SQLiteError) {
        try connection.cached(uncountSQL).run([.integer(sequence)])
        try connection.cached("DELETE FROM campaign_event_counts WHERE count <= 0").run()
    }
}
