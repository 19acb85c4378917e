import GronaMockPlatform

/// The signing keys of `keys/`, reloaded when a file in the directory changes, with the keys a rotation
/// generated (in memory only, until a global reset).
final class KeyRing: Sendable {
    private struct State {
        var store: KeyStore
        /// Each `.pem` file's stamp when the store was last read.
        var stamps: [String: String]
    }

    let directory: String
    private let state: Mutex<State>
    private let logger: Logger

    init(_ store: KeyStore, logger: Logger) {
        directory = store.directory
        self.logger = logger
        state = Mutex(State(store: store, stamps: Self.stamps(store.directory)))
    }

    var keys: KeyStore { state.withLock { $0.store } }

    /// Reads the directory again when a key file was added, changed or removed; true when it did (every
    /// workspace must then be signed again).
    func reloadIfChanged() -> Bool {
        let stamps = Self.stamps(directory)
        guard stamps != state.withLock({ $0.stamps }) else { return false }
        reload(stamps: stamps)
        return true
    }

    /// Reads the directory again, dropping the generated keys.
    func reload() {
        reload(stamps: Self.stamps(directory))
    }

    /// Keeps a key a rotation generated, under `kid`.
    func insert(_ key: P256SigningKey, kid: String) {
        state.withLock { $0.store.insert(key, kid: kid) }
    }

    private func reload(stamps: [String: String]) {
        do {
            let (store, problems) = try KeyStore.load(from: directory)
            for problem in problems { logger.error("signing key not loaded", [("problem", problem)]) }
            state.withLock { $0 = State(store: store, stamps: stamps) }
        } catch {
            logger.error("signing keys not reloaded", [("reason", "\(error)")])
            state.withLock { $0.stamps = stamps }
        }
    }

    private static func stamps(_ directory: String) -> [String: String] {
        let names = (try? FileSystem.list(directory)) ?? []
        var stamps: [String: String] = [:]
        for name in names where name.hasSuffix(".pem") {
            stamps[name] = FileSystem.stamp(directory + "/" + name) ?? ""
        }
        return stamps
    }
}
