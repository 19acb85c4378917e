import GronaMock

/// Configuration revisions (contract §4): one row per workspace, advanced in one IMMEDIATE transaction so that
/// a server and `config sign` on the same file cannot hand out one number for two contents.
extension SQLiteStorage {
    public func configRevision(
        for workspaceKey: String, contentHash: [UInt8], make: (Int64) throws -> StoredConfigRevision
    ) throws -> StoredConfigRevision {
        do {
            return try database.withConnection { connection in
                try connection.transaction {
                    let previous = try Self.selectRevision(workspaceKey, connection)
                    if let previous, previous.contentHash == contentHash { return previous }
                    let next = try make((previous?.revision ?? 0) + 1)
                    try connection.cached(
                        """
                        INSERT INTO config_revisions (workspace_key, revision, content_hash, issued_at, document)
                        VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (workspace_key) DO UPDATE SET revision = excluded.revision,
                            content_hash = excluded.content_hash, issued_at = excluded.issued_at,
                            document = excluded.document
                        WHERE excluded.revision > config_revisions.revision
                        """
                    ).run([
                        .text(workspaceKey), .integer(next.revision), .blob(next.contentHash),
                        .integer(next.issuedAt), .blob(next.document),
                    ])
                    return next
                }
            }
        } catch let error as SQLiteError {
            throw StorageError(error)
        }
    }

    public func latestConfigRevision(for workspaceKey: String) throws(StorageError) -> StoredConfigRevision? {
        try run { () throws(SQLiteError) in
            try database.withConnection { connection throws(SQLiteError) in
                try Self.selectRevision(workspaceKey, connection)
            }
        }
    }

    private static func selectRevision(
        _ workspaceKey: String, _ connection: SQLiteConnection
    ) throws(SQLiteError) -> StoredConfigRevision? {
        let select = try connection.cached(
            "SELECT revision, content_hash, issued_at, document FROM config_revisions WHERE workspace_key = ?")
        try select.bind([.text(workspaceKey)])
        defer { select.reset() }
        guard try select.step() else { return nil }
        return StoredConfigRevision(
            revision: select.int64(0), contentHash: select.blob(1), issuedAt: select.int64(2),
            document: select.blob(3))
    }
}
