import GronaHTTP
import GronaJSON

/// A signed configuration as stored for its workspace: the revision, what it was computed from, and the
/// exact bytes served.
public struct StoredConfigRevision: Sendable, Equatable {
    public var revision: Int64
    /// SHA-256 over everything that makes a revision (payload content and signing keys), not its bytes:
    /// signatures are randomised, so the same content signs differently each time.
    public var contentHash: [UInt8]
    public var issuedAt: Int64
    public var document: [UInt8]
}

/// Reads and advances configuration revisions.
public struct ConfigRevisionStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// The stored revision when its content hash is `contentHash`; otherwise `make(next revision)` is
    /// called, its result stored, and returned. One transaction, so two writers (a server and
    /// `config sign`) cannot hand out the same number for different content.
    public func revision(
        for workspaceKey: String, contentHash: [UInt8],
        make: (Int64) throws -> StoredConfigRevision
    ) throws -> StoredConfigRevision {
        try database.withConnection { connection in
            try connection.transaction {
                let previous = try Self.select(workspaceKey, connection)
                if let previous, previous.contentHash == contentHash { return previous }
                let next = try make((previous?.revision ?? 0) + 1)
                try connection.prepare(
                    """
                    INSERT INTO config_revisions (workspace_key, revision, content_hash, issued_at, document)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (workspace_key) DO UPDATE SET revision = excluded.revision,
                        content_hash = excluded.content_hash, issued_at = excluded.issued_at,
                        document = excluded.document
                    WHERE excluded.revision > config_revisions.revision
                    """
                ).run([
                    .text(workspaceKey), .integer(next.revision), .blob(next.contentHash), .integer(next.issuedAt),
                    .blob(next.document),
                ])
                return next
            }
        }
    }

    /// The latest stored revision of a workspace, if any.
    public func latest(for workspaceKey: String) throws(SQLiteError) -> StoredConfigRevision? {
        try database.withConnection { connection throws(SQLiteError) in try Self.select(workspaceKey, connection) }
    }

    private static func select(
        _ workspaceKey: String, _ connection: SQLiteConnection
    ) throws(SQLiteError) -> StoredConfigRevision? {
        let select = try connection.prepare(
            "SELECT revision, content_hash, issued_at, document FROM config_revisions WHERE workspace_key = ?")
        try select.bind([.text(workspaceKey)])
        guard try select.step() else { return nil }
        return StoredConfigRevision(
            revision: select.int64(0), contentHash: select.blob(1), issuedAt: select.int64(2),
            document: select.blob(3))
    }
}
