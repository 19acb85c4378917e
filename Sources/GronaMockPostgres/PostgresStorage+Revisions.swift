import GronaMock

/// Configuration revisions (contract §4): one row per workspace, advanced in one transaction under an
/// advisory lock, so that two instances (or a server and `config sign`) never hand out one number for two
/// contents. A lock, not `SELECT … FOR UPDATE`: before a workspace's first revision there is no row to lock.
extension PostgresStorage {
    /// The advisory lock revision writes take (ASCII "grona-rv"). Revisions are rare; one lock for all is enough.
    static let revisionLock: Int64 = 0x6772_6F6E_612D_7276

    public func configRevision(
        for workspaceKey: String, contentHash: [UInt8], make: (Int64) throws -> StoredConfigRevision
    ) throws -> StoredConfigRevision {
        // `make` throws errors of its own (signing), which the typed storage calls do not carry: kept
        // here, the transaction rolled back by a stand-in, and passed on as they were.
        var makeError: (any Error)?
        do throws(PostgresError) {
            return try pool.withWriter { connection throws(PostgresError) in
                try connection.transaction { () throws(PostgresError) in
                    var lock = PostgresBinds()
                    lock.append(Self.revisionLock)
                    try connection.query("SELECT pg_advisory_xact_lock($1)", lock)
                    let previous = try Self.selectRevision(workspaceKey, connection)
                    if let previous, previous.contentHash == contentHash { return previous }
                    let next: StoredConfigRevision
                    do {
                        next = try make((previous?.revision ?? 0) + 1)
                    } catch {
                        makeError = error
                        throw PostgresError(sqlState: nil, message: "signing failed", connectionLost: false)
                    }
                    var binds = PostgresBinds()
                    binds.append(workspaceKey)
                    binds.append(next.revision)
                    binds.append(bytes: next.contentHash)
                    binds.append(next.issuedAt)
                    binds.append(bytes: next.document)
                    try connection.query(
                        """
                        INSERT INTO config_revisions (workspace_key, revision, content_hash, issued_at, document)
                        VALUES ($1, $2, $3, $4, $5)
                        ON CONFLICT (workspace_key) DO UPDATE SET revision = excluded.revision,
                            content_hash = excluded.content_hash, issued_at = excluded.issued_at,
                            document = excluded.document
                        WHERE excluded.revision > config_revisions.revision
                        """, binds)
                    return next
                }
            }
        } catch {
            if let makeError { throw makeError }
            throw StorageError(error)
        }
    }

    public func latestConfigRevision(for workspaceKey: String) throws(StorageError) -> StoredConfigRevision? {
        try run { () throws(PostgresError) in
            try pool.withWriter { connection throws(PostgresError) in
                try Self.selectRevision(workspaceKey, connection)
            }
        }
    }

    private static func selectRevision(
        _ workspaceKey: String, _ connection: PostgresConnection
    ) throws(PostgresError) -> StoredConfigRevision? {
        var binds = PostgresBinds()
        binds.append(workspaceKey)
        let result = try connection.query(
            "SELECT revision, content_hash, issued_at, document FROM config_revisions WHERE workspace_key = $1",
            binds)
        guard result.rowCount > 0 else { return nil }
        return StoredConfigRevision(
            revision: result.int64(0, 0), contentHash: result.bytes(0, 1), issuedAt: result.int64(0, 2),
            document: result.bytes(0, 3))
    }
}
