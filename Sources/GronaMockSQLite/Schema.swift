/// Schema versions, applied in order and recorded in `PRAGMA user_version`; a database from a newer
/// grona-mock is refused rather than guessed at.
enum Schema {
    static let migrations: [String] = [
        // 1: configuration revisions, so that a revision never goes back while the database persists
        // (contract §4) and a revision is served byte-identical across restarts.
        """
        CREATE TABLE config_revisions (
            workspace_key TEXT PRIMARY KEY,
            revision INTEGER NOT NULL,
            content_hash BLOB NOT NULL,
            issued_at INTEGER NOT NULL,
            document BLOB NOT NULL
        ) STRICT;
        """,
        // 2: received events, the purchase treatments they claim, and rejected events with their reasons
        // (contract §7). `seq` is arrival order and the inspection cursor.
        """
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY,
            workspace_key TEXT NOT NULL,
            event_id TEXT NOT NULL,
            type TEXT NOT NULL,
            timestamp INTEGER NOT NULL,
            received_at INTEGER NOT NULL,
            corrected_timestamp INTEGER NOT NULL,
            install_id TEXT NOT NULL,
            customer_id TEXT,
            session_id TEXT,
            visit_id TEXT,
            campaign_id TEXT,
            variant_id TEXT,
            arm TEXT,
            placement TEXT,
            demo INTEGER NOT NULL,
            config_revision INTEGER,
            total_minor INTEGER,
            json BLOB NOT NULL
        ) STRICT;
        CREATE UNIQUE INDEX events_by_id ON events (workspace_key, event_id);
        CREATE INDEX events_by_campaign ON events (workspace_key, campaign_id, variant_id);
        CREATE INDEX events_by_type ON events (workspace_key, type);
        CREATE TABLE purchase_treatments (
            event_seq INTEGER NOT NULL,
            workspace_key TEXT NOT NULL,
            campaign_id TEXT NOT NULL,
            variant_id TEXT NOT NULL,
            placement TEXT NOT NULL,
            type TEXT NOT NULL,
            value_milli INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX purchase_treatments_by_event ON purchase_treatments (event_seq);
        CREATE TABLE rejected_events (
            seq INTEGER PRIMARY KEY,
            workspace_key TEXT NOT NULL,
            batch_index INTEGER NOT NULL,
            event_id TEXT,
            field TEXT NOT NULL,
            reason TEXT NOT NULL,
            received_at INTEGER NOT NULL,
            install_id TEXT NOT NULL,
            json BLOB NOT NULL
        ) STRICT;
        CREATE INDEX rejected_by_workspace ON rejected_events (workspace_key);
        """,
        // Version 2: one row that health rewrites and commits, to learn whether events can be stored now.
        """
        CREATE TABLE storage_probe (id INTEGER PRIMARY KEY CHECK (id = 1), writes INTEGER NOT NULL) STRICT;
        """,
        // Version 4 (issue 18): listings and exports page by `seq` within a workspace, and the violations check
        // reads each visit whole. Without an index in `seq` order a page was sorted out of every row of the
        // workspace (O(n) per page, quadratic over a scan); `(workspace_key)` is `(workspace_key, seq)`, since
        // SQLite appends the rowid. `events_by_visit` is the order of `GronaStorage.scanEvents`.
        """
        CREATE INDEX events_by_workspace ON events (workspace_key);
        CREATE INDEX events_by_visit ON events (workspace_key, install_id, visit_id);
        """,
        // Version 5: the per-campaign counts (`campaignCounts`, behind the summary and the funnels) read this
        // index alone and in their GROUP BY order, so they stream in constant memory. With only
        // (workspace_key, campaign_id, variant_id), SQLite sorted every row of the workspace to group them,
        // and the sorter's merge buffers grew with the workspace (resident memory rose after each summary in
        // bench/memory.sh). It serves every lookup the old index did, which it replaces.
        """
        DROP INDEX events_by_campaign;
        CREATE INDEX events_by_campaign_arm ON events (workspace_key, campaign_id, variant_id, arm, demo, type);
        """,
        // Version 6 (issue 14): the per-campaign counts are kept as counts, one row per group, instead of read
        // from `events_by_campaign_arm`. That index had a point of insertion per group (some 170 for the load
        // fleet's campaigns, arms and types), so a commit of 76 varied events rewrote 72 of its pages: 56 % of
        // the write-ahead log, which the checkpoints then wrote and synced again (129 log frames per commit with
        // the index, 61 without; bench/README.md). The writer counts the events it stores in memory and folds
        // them into the table every few thousand (`SQLiteStorage+CampaignCounts`); a reader adds the events past
        // `campaign_counts_folded.seq` itself, so a summary is exact at once. A missing variant or arm is
        // counted as '' (the summary read both as ''). The index's rows are counted into the table in its order
        // (no sort) before it goes.
        """
        CREATE TABLE campaign_event_counts (
            workspace_key TEXT NOT NULL,
            campaign_id TEXT NOT NULL,
            variant_id TEXT NOT NULL,
            arm TEXT NOT NULL,
            demo INTEGER NOT NULL,
            type TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (workspace_key, campaign_id, variant_id, arm, demo, type)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE campaign_counts_folded (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL) STRICT;
        INSERT INTO campaign_event_counts
            SELECT workspace_key, campaign_id, coalesce(variant_id, ''), coalesce(arm, ''), demo, type, count(*)
            FROM events WHERE campaign_id IS NOT NULL
            GROUP BY workspace_key, campaign_id, variant_id, arm, demo, type
            ON CONFLICT DO UPDATE SET count = count + excluded.count;
        INSERT INTO campaign_counts_folded (id, seq) VALUES (1, (SELECT coalesce(max(seq), 0) FROM events));
        DROP INDEX events_by_campaign_arm;
        """,
        // Version 7 (issue 14): `events_by_type` goes. Its (workspace, type) key has a point of insertion per type
        // in every commit, in the middle of the index, where a page splits in half: 18 of the 57 log frames a
        // commit of 76 fleet events wrote (bench/events/log-frames.py), and at half the fleet's peak the writer
        // spent 16 % more CPU per event with it (bench/README.md). A listing filtered by type now reads the
        // workspace in sequence order through `events_by_workspace` until its page is full, as the campaign and
        // placement filters already did: time linear in the rows read, about the page's size over the type's
        // share. The long-polls, which counted after every commit, now count on from their last count and read
        // only the events stored since; `event_deletions` tells them when that count can no longer be continued
        // (a workspace's events deleted; the oldest dropped at `--max-events` show as the oldest sequence moving).
        // The price, measured on one workspace of 2.4 million fleet events: a page of purchases (1.2 % of them)
        // takes 5 ms instead of 2, and a wait's first count, or a filter that matches nothing, reads the whole
        // workspace (0.56 s instead of 3 ms). Workspaces of a test suite's size do not notice it.
        """
        CREATE TABLE event_deletions (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL) STRICT;
        INSERT INTO event_deletions (id, generation) VALUES (1, 0);
        DROP INDEX events_by_type;
        """,
    ]

    /// Applies what is missing, in one IMMEDIATE transaction that reads the version inside it, so two
    /// processes opening a new file at once (a server and `config sign`) cannot both migrate it.
    static func migrate(_ connection: SQLiteConnection) throws(SQLiteError) {
        do {
            try connection.transaction {
                let current = Int(try connection.scalarText("PRAGMA user_version") ?? "0") ?? 0
                guard current <= migrations.count else {
                    throw SQLiteError(
                        code: SQLiteError.newerSchema,
                        message: "the database has schema version \(current), newer than this grona-mock knows "
                            + "(\(migrations.count)); use a newer grona-mock or another --db file")
                }
                for version in current..<migrations.count {
                    try connection.execute(migrations[version])
                }
                if current < migrations.count {
                    try connection.execute("PRAGMA user_version = \(migrations.count)")
                }
            }
        } catch let error as SQLiteError {
            throw error
        } catch {
            throw SQLiteError(code: 1, message: "migrating the database: \(error)")
        }
    }
}
