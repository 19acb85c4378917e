import GronaHTTP

/// A read of the event store for a control-API handler. A failure is the same answer wherever the store is
/// read: 503 `storage_unavailable` with `Retry-After`, since the reader can simply ask again.
enum StoreReads {
    static func perform<T>(_ body: () throws(StorageError) -> T) throws(HTTPError) -> T {
        do {
            return try body()
        } catch {
            throw HTTPError(
                .serviceUnavailable, code: .storageUnavailable, message: "The event store cannot be read: \(error).",
                headers: ["Retry-After": "1"])
        }
    }
}
