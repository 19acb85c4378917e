import GronaMock

/// A failed PostgreSQL call: the server's SQLSTATE when it sent one, and libpq's message.
struct PostgresError: Error, Sendable, CustomStringConvertible {
    let sqlState: String?
    let message: String
    /// The connection is unusable (refused, lost, reset) and must be opened again.
    let connectionLost: Bool

    var description: String { message }

    /// Not a server SQLSTATE: the database was migrated by a newer grona-mock.
    static let newerSchema = "GM001"

    /// The same error with `secret` (and its URL-encoded form) blanked out of the message: libpq's messages
    /// name the host and the user, but a message must never carry the password whatever it quotes.
    func redacting(_ secrets: [String]) -> PostgresError {
        var message = message
        for secret in secrets where !secret.isEmpty {
            message = message.replacing(secret, with: "***")
        }
        return PostgresError(sqlState: sqlState, message: message, connectionLost: connectionLost)
    }
}

/// A notification received on a channel a connection listens to (`LISTEN` / `NOTIFY`).
struct PostgresNotification: Sendable, Equatable {
    let channel: String
    let payload: String
    /// The server process of the connection that sent it (its own when it listens to itself).
    let serverProcessID: Int32
}

extension StorageError {
    /// What a PostgreSQL failure means to the engine (the one place its SQLSTATEs are judged): a lost or
    /// refused connection, a server shutting down or short of resources, a cancelled query, a lock or
    /// serialization conflict can pass, so asking again later may succeed (a 503 with `Retry-After`).
    init(_ error: PostgresError) {
        let passingClasses: Set<Substring> = ["08", "53", "57", "40"]
        let passingStates: Set<String> = ["55P03", "55006"]
        let kind: StorageError.Kind
        if error.sqlState == PostgresError.newerSchema {
            kind = .schemaTooNew
        } else if error.connectionLost {
            kind = .unavailable
        } else if let state = error.sqlState, passingClasses.contains(state.prefix(2)) || passingStates.contains(state)
        {
            kind = .unavailable
        } else {
            kind = .failed
        }
        self.init(kind, "PostgreSQL: \(error.message)")
    }
}
