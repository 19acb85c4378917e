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
}
