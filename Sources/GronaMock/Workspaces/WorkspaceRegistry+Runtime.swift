import GronaMockJSON
import GronaMockPlatform

/// Changes made while the server runs (contract §8): replace a workspace, kill or revive a campaign, rotate
/// keys, reset. Each is validated as a file is and served as a new signed revision. Clones are in
/// `WorkspaceRegistry+Clones.swift`.
extension WorkspaceRegistry {
    /// Why a run-time change was refused.
    package enum ChangeError: Error, Sendable {
        /// The document has errors. `allowInvalidWouldServe` when every one is a content error that
        /// `PUT …?allowInvalid=true` relaxes (never an identifier).
        case invalid([ValidationProblem], allowInvalidWouldServe: Bool)
        /// A key, id or secret that breaks its grammar (contract §1), wherever it was given.
        case invalidIdentifier(InvalidIdentifier)
        case unknownWorkspace(String)
        case unknownCampaign(String)
        case notAClone(String)
        case alreadyExists(String)
        /// `--max-clones` clones are served already.
        case tooManyClones(limit: Int)
        /// The document's secret key belongs to another served workspace (named), whatever `allowInvalid`
        /// says: a secret picks the workspace on the grants endpoint, so sharing one would split its grants.
        case secretKeyInUse(owner: String)
        case failed(String)
        /// The storage could not be reached (to sign a revision, or to tell the other instances): a 503, ask
        /// again.
        case unavailable(StorageError)
    }

    /// Which key list `rotate` turns.
    package enum KeyRole: String, Sendable {
        case config, grant
    }

    /// Serves `document` as workspace `key`, in place of its file until a reset. With `allowInvalid`, a
    /// workspace with content errors is served anyway (to test how an SDK rejects bad campaigns); identifiers
    /// are checked whatever it says.
    @discardableResult
    package func put(
        _ key: String, document: JSONValue, allowInvalid: Bool = false, origin: Origin = .runtime
    ) throws(ChangeError) -> Entry {
        try Self.check(key, .workspaceKey, given: "the path")
        return try lane.withLock { lane throws(ChangeError) in
            // A clone stays one (deletable, and removed when its time to live passes) whatever is put in it.
            let origin = entry(for: key)?.origin == .clone ? .clone : origin
            let entry = try replace(
                key, document: document, allowInvalid: allowInvalid, origin: origin, offersAllowInvalid: true,
                in: &lane)
            try published(entry)
            announce(.replaced, key: key, in: &lane)
            return entry
        }
    }

    /// Sets one campaign's `status` (`killed` is the kill switch; `live` revives it).
    @discardableResult
    package func setStatus(
        _ status: Campaign.Status, campaign campaignID: String, in key: String
    ) throws(ChangeError) -> Entry {
        try Self.check(key, .workspaceKey, given: "the path")
        try Self.check(campaignID, .campaignID, given: "the path")
        return try lane.withLock { lane throws(ChangeError) in
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
            let entry = try replace(
                key, document: .object(root), allowInvalid: !current.problems.isEmpty,
                origin: current.origin == .clone ? .clone : .runtime, in: &lane)
            try published(entry)
            let cause: WorkspaceChange.Cause =
                status == .killed ? .killed(campaign: campaignID) : .revived(campaign: campaignID)
            announce(cause, key: key, in: &lane)
            return entry
        }
    }

    /// The next key becomes current and the old one stays published (second in the list); when there is no
    /// next key, a new one is generated (in memory only, until a reset).
    @discardableResult
    package func rotate(_ role: KeyRole, in key: String) throws(ChangeError) -> Entry {
        try Self.check(key, .workspaceKey, given: "the path")
        return try lane.withLock { lane throws(ChangeError) in
            let current = try existing(key)
            var list = role == .config ? current.workspace.configKeyIDs : current.workspace.grantKeyIDs
            guard let old = list.first else {
                let path = JSONPath.root.appending("signing").appending(role == .config ? "configKeys" : "grantKeys")
                throw .invalid(
                    [ValidationProblem(.error, path, "there is no key to rotate", blocksServing: true)],
                    allowInvalidWouldServe: false)
            }
            if list.count >= 2 {
                list.swapAt(0, 1)
            } else {
                let kid = "\(key)-\(role.rawValue)-rotated-\(clock.nowSeconds())"
                do {
                    keyRing.insert(try P256SigningKey.generate(), kid: kid)
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
            let entry = try replace(
                key, document: .object(root), allowInvalid: !current.problems.isEmpty,
                origin: current.origin == .clone ? .clone : .runtime, in: &lane)
            try published(entry)
            announce(.rotated(role), key: key, in: &lane)
            return entry
        }
    }

    /// Drops every run-time change, clone and generated key, and serves the files again.
    /// Other instances reset too; when that cannot be recorded, the failure is logged and this one is reset
    /// all the same.
    package func reset() {
        lane.withLock { lane in
            resetAll(in: &lane)
            do throws(ChangeError) {
                try publish(.reset(workspace: nil))
            } catch {
                // `publish` logged it.
            }
        }
    }

    /// Every run-time change dropped, the keys read again and every file loaded again.
    func resetAll(in lane: inout ChangeLane) {
        let removed = served.removeRuntimeEntries()
        expiries.removeAll()
        lane.files.forgetAll()
        keyRing.reload()
        _ = reload(force: true, in: &lane)
        for key in removed { announce(.reset, key: key, in: &lane) }
    }

    /// Drops the run-time changes of one workspace, for a test run that shares the server with others: its
    /// file is served again, as after a global reset (a clone, or a workspace only set at run time, is no
    /// longer served). Other workspaces are left as they are; a key generated by a rotation stays in memory,
    /// unused, until a global reset. Returns the entry now served under `key`, if any.
    @discardableResult
    package func reset(_ key: String) throws(ChangeError) -> Entry? {
        try Self.check(key, .workspaceKey, given: "workspace")
        return try lane.withLock { lane throws(ChangeError) -> Entry? in
            let current = try existing(key)
            guard current.origin != .file else { return current }
            // Told first, as a removal is: a reset the other instances could not hear of is not made here.
            try publish(.reset(workspace: key))
            let restored = resetOne(key, in: &lane)
            logger.info(
                "workspace reset", [("workspace", key), ("was", current.origin.rawValue), ("served", restored != nil)])
            return restored
        }
    }

    /// Workspace `key`'s run-time change dropped and its file, if any, served again.
    func resetOne(_ key: String, in lane: inout ChangeLane) -> Entry? {
        served.remove(key)
        expiries.set(nil, for: key)
        // Read the file again even if it did not change while the run-time version hid it.
        lane.files.forget(key)
        _ = reload(force: false, in: &lane)
        announce(.reset, key: key, in: &lane)
        return entry(for: key)
    }

    // MARK: - Helpers

    /// Throws `.invalidIdentifier` unless `text` is a valid identifier of `kind`, naming where it was given.
    static func check(_ text: String, _ kind: IdentifierKind, given field: String) throws(ChangeError) {
        do {
            try kind.validated(text, given: field)
        } catch {
            throw .invalidIdentifier(error)
        }
    }

    func existing(_ key: String) throws(ChangeError) -> Entry {
        guard let entry = entry(for: key) else { throw .unknownWorkspace(key) }
        return entry
    }

    /// Validates `document` as workspace `key` and serves it. Content errors are served only with
    /// `allowInvalid`; identifier errors and a secret key another workspace holds never are.
    /// `offersAllowInvalid`: the caller takes `allowInvalid` from its request, so its refusal may suggest it.
    func replace(
        _ key: String, document: JSONValue, allowInvalid: Bool, origin: Origin, offersAllowInvalid: Bool = false,
        in lane: inout ChangeLane
    ) throws(ChangeError) -> Entry {
        let outcome = WorkspaceValidator.validate(document, expectedKey: key, keyIDs: Set(keys.keyIDs))
        guard let workspace = outcome.workspace else {
            throw .invalid(outcome.problems, allowInvalidWouldServe: false)
        }
        if let owner = served.owner(ofAny: workspace.secretKeys, except: key) {
            throw .secretKeyInUse(owner: owner.workspace.key)
        }
        let errors = outcome.problems.filter { $0.severity == .error }
        if errors.contains(where: \.blocksServing) {
            throw .invalid(outcome.problems, allowInvalidWouldServe: false)
        }
        if !errors.isEmpty && !allowInvalid {
            throw .invalid(outcome.problems, allowInvalidWouldServe: offersAllowInvalid)
        }
        let entry = try install(
            workspace, sourcePath: nil, problems: outcome.problems, source: document, origin: origin, in: &lane)
        logger.info(
            "workspace changed at run time",
            [("workspace", key), ("revision", entry.configuration.revision), ("origin", origin.rawValue)])
        return entry
    }
}
