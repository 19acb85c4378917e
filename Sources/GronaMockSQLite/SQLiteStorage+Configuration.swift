import GronaMock

extension GronaMockConfiguration.Storage {
    /// The SQLite file at `path`, created when missing; `:memory:` keeps everything in memory for the
    /// server's life.
    public static func sqlite(path: String) -> Self {
        Self(description: path) { () throws(StorageError) in try SQLiteStorage(path: path) }
    }
}
