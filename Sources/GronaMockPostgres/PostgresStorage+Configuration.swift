import GronaMock

extension GronaMockConfiguration.Storage {
    /// The PostgreSQL database at `url` (`postgres://` or `postgresql://`); its description, for logs and
    /// health, is the URL without its password.
    public static func postgres(url: String) -> Self {
        let description = PostgresURL(url)?.description ?? "an invalid PostgreSQL URL"
        return Self(description: description) { () throws(StorageError) in try PostgresStorage(url: url) }
    }
}
