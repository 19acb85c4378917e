/// The PostgreSQL schema: versions applied in order and recorded in `schema_version`; a database migrated by
/// a newer grona-mock is refused rather than guessed at.
///
/// Every text column is `bytea` holding the text's UTF-8 bytes. PostgreSQL's `text` refuses the NUL
/// character that JSON allows (`"\u0000"` in an eventID), and one such event would fail its whole group
/// commit; bytea also compares and sorts byte by byte, as SQLite's default collation does, whatever the
/// cluster's locale. `convert_from(column, 'UTF8')` reads one in psql.
enum Schema {
    /// The advisory lock key that serializes migrations across instances starting together
    /// ("grona-mk" in ASCII).
    static let migrationLock: Int64 = 0x6772_6F6E_612D_6D6B

    static let migrations: [String] = [
        // 1: configuration revisions (contract §4), received events with the purchase treatments they claim,
        // rejected events with their reasons (contract §7), and the row health rewrites. `seq` is arrival
        // order and the inspection cursor.
        """
        CREATE TABLE config_revisions (
            workspace_key bytea PRIMARY KEY,
            revision bigint NOT NULL,
            content_hash bytea NOT NULL,
            issued_at bigint NOT NULL,
            document bytea NOT NULL
        );
        CREATE TABLE events (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            workspace_key bytea NOT NULL,
            event_id bytea NOT NULL,
            type bytea NOT NULL,
            timestamp bigint NOT NULL,
            received_at bigint NOT NULL,
            corrected_timestamp bigint NOT NULL,
            install_id bytea NOT NULL,
            customer_id bytea,
            session_id bytea,
            visit_id bytea,
            campaign_id bytea,
            variant_id bytea,
            arm bytea,
            placement bytea,
            demo boolean NOT NULL,
            config_revision bigint,
            total_minor bigint,
            json bytea NOT NULL
        );
        CREATE UNIQUE INDEX events_by_id ON events (workspace_key, event_id);
        CREATE INDEX events_by_campaign ON events (workspace_key, campaign_id, variant_id);
        CREATE INDEX events_by_type ON events (workspace_key, type);
        CREATE TABLE purchase_treatments (
            event_seq bigint NOT NULL,
            workspace_key bytea NOT NULL,
            campaign_id bytea NOT NULL,
            variant_id bytea NOT NULL,
            placement bytea NOT NULL,
            type bytea NOT NULL,
            value_milli bigint NOT NULL
        );
        CREATE INDEX purchase_treatments_by_event ON purchase_treatments (event_seq);
        CREATE INDEX purchase_treatments_by_workspace ON purchase_treatments (workspace_key);
        CREATE TABLE rejected_events (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            workspace_key bytea NOT NULL,
            batch_index bigint NOT NULL,
            event_id bytea,
            field bytea NOT NULL,
            reason bytea NOT NULL,
            received_at bigint NOT NULL,
            install_id bytea NOT NULL,
            json bytea NOT NULL
        );
        CREATE INDEX rejected_by_workspace ON rejected_events (workspace_key);
        CREATE TABLE storage_probe (id integer PRIMARY KEY CHECK (id = 1), writes bigint NOT NULL);
        """,
        clusterTables,
        // 3 (issue 18): listings and exports page by `seq` within a workspace, and the violations check reads
        // each visit whole in `GronaStorage.scanEvents`' order, each chunk a seek in its index. The visit is
        // indexed as `coalesce(visit_id, '')`: the validator never stores an empty visit id, so this sorts
        // events without a visit first, as the scan's order wants, and lets a chunk start with one row
        // comparison, which a btree seeks to.
        """
        CREATE INDEX events_by_workspace ON events (workspace_key, seq);
        CREATE INDEX events_by_visit ON events (workspace_key, install_id, (coalesce(visit_id, ''::bytea)), seq);
        """,
        grantTables,
    ]

    /// Applies what is missing in one transaction, under a transaction-scoped advisory lock taken before the
    /// version is read: instances starting together on an empty database queue behind the first, which
    /// migrates, and then find nothing left to do.
    static func migrate(_ connection: PostgresConnection) throws(PostgresError) {
        try connection.transaction { () throws(PostgresError) in
            var lock = PostgresBinds()
            lock.append(migrationLock)
            try connection.query("SELECT pg_advisory_xact_lock($1)", lock)
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_version (
                    id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)
                """)
            let found = try connection.query("SELECT version FROM schema_version WHERE id = 1")
            let current = found.rowCount == 0 ? 0 : Int(found.int64(0, 0))
            guard current <= migrations.count else {
                throw PostgresError(
                    sqlState: PostgresError.newerSchema,
                    message: "the database has schema version \(current), newer than this grona-mock knows "
                        + "(\(migrations.count)); use a newer grona-mock or another --store database",
                    connectionLost: false)
            }
            if current < migrations.count {
                for version in current..<migrations.count {
                    try connection.execute(migrations[version])
                }
            }
            try ArrivalOrder.checkSequence(connection)
            guard current < migrations.count else { return }
            var version = PostgresBinds()
            version.append(Int64(migrations.count))
            try connection.query(
                """
                INSERT INTO schema_version (id, version) VALUES (1, $1::bigint)
                ON CONFLICT (id) DO UPDATE SET version = excluded.version
                """, version)
        }
    }
}

extension PostgresConnection {
    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws (a failed
    /// statement leaves the transaction aborted: without the rollback the connection refuses everything).
    func transaction<T>(_ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            rollBack()
            throw error
        }
    }

    private func rollBack() {
        guard !isBroken else { return }
        try? execute("ROLLBACK")
    }
}
