import GronaMockHTTP
import GronaMockJSON

/// Changes made while the server runs (contract §8): replace a workspace, kill or revive a campaign, clone a
/// workspace for an isolated test run, rotate keys. Each is validated as a file is and served as a new signed
/// revision; `reset` puts everything back to the files.
extension WorkspaceRegistry {
    /// Why a run-time change was refused.
    package enum ChangeError: Error, Sendable {
        case invalid([ValidationProblem])
        case unknownWorkspace(String)
        case unknownCampaign(String)
        case notAClone(String)
        case alreadyExists(String)
        /// The document's secret key belongs to another served workspace (named), whatever `allowInvalid`
        /// says: a secret picks the workspace on the grants endpoint, so sharing one would split its grants.
        case secretKeyInUse(owner: String)
        case failed(String)
        /// Served here, but the other instances on the database could not be told (a 503: ask again).
        case unavailable(StorageError)
    }

    /// Serves `document` as workspace `key`, in place of its file until a reset. With `allowInvalid`, a
    /// workspace with errors is served anyway (to test how an SDK rejects bad campaigns).
    @discardableResult
    package func put(
        _ key: String, document: JSONValue, allowInvalid: Bool = false, origin: Origin = .runtime
    ) throws(ChangeError) -> Entry {
        try loading.withLock { _ throws(ChangeError) in
            // A clone stays one (deletable, and removed when its time to live passes) whatever is put in it.
            let origin = entry(for: key)?.origin == .clone ? .clone : origin
            return try published(replace(key, document: document, allowInvalid: allowInvalid, origin: origin))
        }
    }

    /// Sets one campaign's `status` (`killed` is the kill switch; `live` revives it).
    @discardableResult
    package func setStatus(
        _ status: Campaign.Status, campaign campaignID: String, in key: String
    ) throws(ChangeError) -> Entry {
        try loading.withLock { _ throws(ChangeError) in
            let current = try existing(key)
            guard var root = current.source.objectValue, var config = root["config"]?.objectValue,
                var campaigns = config["campaigns"]?.arrayValue,
                let index = campaigns.firstIndex(where: { $0["id"]?.stringValue == campaignID }),
                var campaign = campaigns[index].objectValue
            else { throw .unknownCampaign(campaignID) }
            campaign.set("status", .string(status.rawValue))
            campaigns[index] = .object(campaign)
            config.set("campaigns", .array(campaigns))
            root.set("config", .object(config))
            return try published(
                replace(
                    key, document: .object(root), allowInvalid: !current.problems.isEmpty,
                    origin: current.origin == .clone ? .clone : .runtime))
        }
    }

    /// Copies workspace `key` as `newKey`: the same content and keys, its own secret key (a secret picks the
    /// workspace on the grants endpoint, so it cannot be shared) and its own events. With `ttlSeconds`, the
    /// clone is removed by `expireClones` once that many seconds of real time have passed after `now`.
    package func clone(
        _ key: String, as newKey: String, secretKey: String?, ttlSeconds: Int? = nil,
        now: UInt64 = MonotonicClock.now()
    ) throws(ChangeError) -> (Entry, String) {
        try loading.withLock { _ throws(ChangeError) -> (Entry, String) in
            let current = try existing(key)
            guard Identifiers.isWorkspaceKey(newKey) else {
                throw .invalid([
                    ValidationProblem(
                        .error, .root, "\(Quote.text(newKey)) is not a workspace key ([a-z0-9][a-z0-9-]{0,62})")
                ])
            }
            guard entry(for: newKey) == nil else { throw .alreadyExists(newKey) }
            let secret = secretKey ?? "sk_test_\(newKey)_" + Base64.urlEncode((try? LibCrypto.randomBytes(12)) ?? [])
            guard var root = current.source.objectValue else { throw .failed("the workspace has no source document") }
            root.set("workspaceKey", .string(newKey))
            root.set("secretKeys", .array([.string(secret)]))
            let entry = try replace(
                newKey, document: .object(root), allowInvalid: !current.problems.isEmpty, origin: .clone)
            // `deadline(from:after:)` saturates, so no time to live can overflow the deadline.
            let expiry = ttlSeconds.map {
                CloneExpiry(ttlSeconds: $0, deadline: MonotonicClock.deadline(from: now, after: .seconds($0)))
            }
            state.withLock { $0.expiries[newKey] = expiry }
            // Other instances get the wall-clock deadline, which they read alike.
            let shared = ttlSeconds.map {
                SharedExpiry(ttlSeconds: $0, expiresAt: ServerClock.wallMilliseconds().clampedAdding(Int64($0) * 1000))
            }
            try publish(.serve(workspace: newKey, document: entry.source, origin: .clone, expiry: shared))
            return (entry, secret)
        }
    }

    /// Stops serving a clone (its events are the caller's to delete).
    package func removeClone(_ key: String) throws(ChangeError) {
        try loading.withLock { _ throws(ChangeError) in
            let current = try existing(key)
            guard current.origin == .clone else { throw .notAClone(key) }
            dropClone(key)
            try publish(.removeClone(workspace: key))
        }
    }

    /// The time to live of clone `key`, if it was given one.
    package func expiry(of key: String) -> CloneExpiry? {
        state.withLock { $0.expiries[key] }
    }

    /// Removes the clones whose time to live has passed at `now` (a `MonotonicClock` reading; tests pass
    /// their own) and tells the observers (`onCloneExpired`) each key, so that its events and the rest of its
    /// run go too. The file watcher calls it on every tick; the work is one pass over the clones that have a
    /// time to live. Returns the keys removed.
    @discardableResult
    package func expireClones(now: UInt64 = MonotonicClock.now()) -> [String] {
        let expired = loading.withLock { _ in
            state.withLock { state -> [(key: String, ttl: Int)] in
                let due = state.expiries.filter { $0.value.deadline <= now }
                for key in due.keys {
                    state.expiries[key] = nil
                    // Deleting or resetting a clone drops its expiry, so this only guards the invariant.
                    if state.entries[key]?.origin == .clone { state.entries[key] = nil }
                    state.stamps[filePath(key)] = nil
                }
                return due.map { ($0.key, $0.value.ttlSeconds) }.sorted { $0.key < $1.key }
            }
        }
        let observers = expiryObservers.withLock { $0 }
        for (key, ttl) in expired {
            logger.info("clone expired; no longer served", [("workspace", key), ("ttlSeconds", ttl)])
            for observer in observers { observer(key) }
        }
        return expired.map(\.key)
    }

    /// Adds a handler told the key of every clone `expireClones` removes.
    package func onCloneExpired(_ observer: @escaping @Sendable (String) -> Void) {
        expiryObservers.withLock { $0.append(observer) }
    }

    /// Which key list `rotate` turns.
    package enum KeyRole: String, Sendable {
        case config, grant
    }

    /// The next key becomes current and the old one stays published (second in the list); when there is no
    /// next key, a new one is generated (in memory only, until a reset).
    @discardableResult
    package func rotate(_ role: KeyRole, in key: String) throws(ChangeError) -> Entry {
        try loading.withLock { _ throws(ChangeError) in
            let current = try existing(key)
            var list = role == .config ? current.workspace.configKeyIDs : current.workspace.grantKeyIDs
            guard let old = list.first else { throw .failed("the workspace has no \(role.rawValue) keys") }
            if list.count >= 2 {
                list.swapAt(0, 1)
            } else {
                let kid = "\(key)-\(role.rawValue)-rotated-\(clock.nowSeconds())"
                do {
                    let generated = try P256SigningKey.generate()
                    state.withLock { $0.keys.insert(generated, kid: kid) }
                } catch {
                    throw .failed("generating a key: \(error)")
                }
                list = [kid, old]
            }
            guard var root = current.source.objectValue, var signing = root["signing"]?.objectValue else {
                throw .failed("the workspace has no signing section")
            }
            signing.set(role == .config ? "configKeys" : "grantKeys", .array(list.map { .string($0) }))
            root.set("signing", .object(signing))
            // A generated key stays in this process: other instances serve the rotated document only when
            // they hold the key too (docs/scaling.md).
            return try published(
                replace(
                    key, document: .object(root), allowInvalid: !current.problems.isEmpty,
                    origin: current.origin == .clone ? .clone : .runtime))
        }
    }

    /// Drops every run-time change, clone and generated key, and serves the files again.
    /// Other instances reset too; when that cannot be recorded, the failure is logged and this one is reset
    /// all the same.
    package func reset() {
        loading.withLock { _ in
            resetAll()
            do throws(ChangeError) {
                try publish(.reset(workspace: nil))
            } catch {
                // `publish` logged it.
            }
        }
    }

    /// Every run-time change dropped; the caller holds `loading`.
    func resetAll() {
        state.withLock { state in
            state.entries = state.entries.filter { $0.value.origin == .file }
            state.expiries = [:]
            state.stamps = [:]
            state.keyStamps = [:]
        }
        reloadKeys(stamps: Self.keyStamps(keys.directory))
        _ = reloadAll()
    }

    /// Drops the run-time changes of one workspace, for a test run that shares the server with others: its
    /// file is served again, as after a global reset (a clone, or a workspace only set at run time, is no
    /// longer served). Other workspaces are left as they are; a key generated by a rotation stays in memory,
    /// unused, until a global reset. Returns the entry now served under `key`, if any.
    @discardableResult
    package func reset(_ key: String) throws(ChangeError) -> Entry? {
        try loading.withLock { _ throws(ChangeError) -> Entry? in
            let current = try existing(key)
            guard current.origin != .file else { return current }
            let restored = resetOne(key)
            logger.info(
                "workspace reset",
                [("workspace", key), ("was", current.origin.rawValue), ("served", restored != nil)])
            try publish(.reset(workspace: key))
            return restored
        }
    }

    /// Workspace `key`'s run-time change dropped and its file served again, if any; the caller holds `loading`.
    func resetOne(_ key: String) -> Entry? {
        state.withLock { state in
            state.entries[key] = nil
            state.expiries[key] = nil
            // Read the file again even if it did not change while the run-time version hid it.
            state.stamps[filePath(key)] = nil
        }
        _ = reload(force: false)
        return entry(for: key)
    }

    /// Clone `key` no longer served; the caller holds `loading`.
    func dropClone(_ key: String) {
        state.withLock {
            $0.entries[key] = nil
            $0.expiries[key] = nil
            // A file of the same name, hidden while the clone was served, is loaded at the next tick.
            $0.stamps[filePath(key)] = nil
        }
    }

    // MARK: - Helpers (called holding `loading`)

    /// Where the file of workspace `key` would be.
    func filePath(_ key: String) -> String { directory + "/" + key + ".json" }

    private func existing(_ key: String) throws(ChangeError) -> Entry {
        guard let entry = entry(for: key) else { throw .unknownWorkspace(key) }
        return entry
    }

    func replace(
        _ key: String, document: JSONValue, allowInvalid: Bool, origin: Origin
    ) throws(ChangeError) -> Entry {
        let outcome = WorkspaceValidator.validate(document, expectedKey: key, keyIDs: Set(keys.keyIDs))
        guard let workspace = outcome.workspace else { throw .invalid(outcome.problems) }
        if let owner = secretOwner(of: workspace) { throw .secretKeyInUse(owner: owner.workspace.key) }
        let problems = outcome.problems
        if problems.contains(where: { $0.severity == .error }) && !allowInvalid { throw .invalid(problems) }
        do {
            let entry = try install(workspace, sourcePath: nil, problems: problems, source: document, origin: origin)
            logger.info(
                "workspace changed at run time",
                [("workspace", key), ("revision", entry.configuration.revision), ("origin", origin.rawValue)])
            return entry
        } catch {
            throw .failed("could not sign the configuration: \(error)")
        }
    }
}
