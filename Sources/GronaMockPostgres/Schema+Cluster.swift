extension Schema {
    /// 2: the run-time state that instances on one database share (`PostgresRuntime`, issue 15).
    ///
    /// `runtime_changes` is append-only: every run-time workspace change, as its instance applied it, in
    /// `seq` order (written under `PostgresRuntime.changeLock`, so that order is commit order and a reader
    /// that saw seq N never misses an N-1 committed later). `runtime_clock` is the one clock setting.
    /// `fault_rules` keeps each rule's document and how far it has gone (`seen`, `fired`, and its seeded
    /// generator's state as the bit pattern of a bigint), taken under a row lock.
    static let clusterTables = """
        CREATE TABLE runtime_changes (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            instance bytea NOT NULL,
            kind bytea NOT NULL,
            workspace_key bytea,
            payload bytea NOT NULL,
            made_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX runtime_changes_resets ON runtime_changes (seq) WHERE kind = 'reset'::bytea
            AND workspace_key IS NULL;
        CREATE TABLE runtime_clock (
            id integer PRIMARY KEY CHECK (id = 1),
            offset_ms bigint NOT NULL,
            frozen_at bigint,
            version bigint NOT NULL
        );
        CREATE TABLE fault_rules (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            endpoint bytea NOT NULL,
            workspace_key bytea,
            document bytea NOT NULL,
            seen bigint NOT NULL DEFAULT 0,
            fired bigint NOT NULL DEFAULT 0,
            generator bigint
        );
        """

    /// 4: the grants every instance issued, for the violations check (`GrantLog`, issue 15), one row per
    /// workspace, customer, campaign and variant. `seq` is how instances follow the table: it is written
    /// under `PostgresRuntime.grantLock`, so that, as for `runtime_changes`, seq order is commit order.
    /// `instance` is the writer's mark. `grant_clears` records each clear (a reset: one workspace, or every
    /// one when `workspace_key` is NULL), written with the rows it deletes, so that each instance clears its
    /// own log too.
    static let grantTables = """
        CREATE TABLE issued_grants (
            workspace_key bytea NOT NULL,
            customer_id bytea NOT NULL,
            campaign_id bytea NOT NULL,
            variant_id bytea NOT NULL,
            seq bigint GENERATED ALWAYS AS IDENTITY,
            instance bytea NOT NULL,
            PRIMARY KEY (workspace_key, customer_id, campaign_id, variant_id)
        );
        CREATE UNIQUE INDEX issued_grants_by_seq ON issued_grants (seq);
        CREATE TABLE grant_clears (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            instance bytea NOT NULL,
            workspace_key bytea,
            made_at timestamptz NOT NULL DEFAULT now()
        );
        """
}
