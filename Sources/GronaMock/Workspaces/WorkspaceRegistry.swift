import GronaMockHTTP
import GronaMockJSON

/// The workspaces being served and their signed configurations: loaded from `workspaces/`, reloaded when
/// a file changes, and readable from any thread.
///
/// A file with errors is not served; an edit that breaks a served file keeps its last good revision
/// serving, and every error is logged. Revisions come from the database, so they never go back.
package final class WorkspaceRegistry: Sendable {
    /// A served workspace.
    package struct Entry: Sendable {
        package let workspace: Workspace
        package let configuration: SignedConfiguration
        /// The file it came from, or nil for one set at run time.
        package let sourcePath: String?
        /// Warnings (and, for a workspace served deliberately invalid, errors).
        package let problems: [ValidationProblem]
        /// The document it was read from: a file's content, or what a test put at run time.
        package let source: JSONValue
        package let origin: Origin
    }

    /// Where a served workspace came from. Run-time changes hide the file until `reset`.
    package enum Origin: String, Sendable {
        case file, runtime, clone
    }

    /// What loading one file did.
    package struct FileReport: Sendable {
        package enum Outcome: Sendable, Equatable {
            case served(revision: Int64)
            /// Errors: not served; a previously good revision, if any, keeps serving.
            case rejected(keptRevision: Int64?)
            case removed
        }

        package let path: String
        package let outcome: Outcome
        package let problems: [ValidationProblem]
    }

    struct State {
        var entries: [String: Entry] = [:]
        var stamps: [String: String] = [:]
        var keys: KeyStore
        var keyStamps: [String: String] = [:]
        /// Files that are not served as written, with their first error, for health.
        var fileErrors: [String: String] = [:]
        /// Clones made with a time to live, by key.
        var expiries: [String: CloneExpiry] = [:]
    }

    /// When a clone made with `ttlSeconds` is removed. The deadline is on the real monotonic clock, not the
    /// mock's: a test that moves the mock's clock forward by a day must not delete its own clone, and one that
    /// moves it back must not keep a forgotten clone for ever.
    package struct CloneExpiry: Sendable, Equatable {
        package let ttlSeconds: Int
        /// `MonotonicClock` nanoseconds.
        package let deadline: UInt64

        /// Nanoseconds left at `now` (a `MonotonicClock` reading), 0 once passed.
        package func remaining(at now: UInt64) -> UInt64 { deadline > now ? deadline - now : 0 }
    }

    /// The time to live a clone may be given: a second to a day.
    package static let cloneTTLSeconds: ClosedRange<Int> = 1...86_400

    /// Files whose last load failed, with the first error of each, in file order.
    package var loadErrors: [(file: String, message: String)] {
        state.withLock { $0.fileErrors }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// How many workspaces are served now.
    package var servedCount: Int { state.withLock { $0.entries.count } }

    package let directory: String
    private let revisions: any GronaStorage
    let clock: ServerClock
    /// Where run-time changes are told to the other instances on the same database (nothing, alone).
    let shared: any SharedRuntime
    let logger: Logger
    let state: Mutex<State>
    /// Serialises loading, so two reloads never sign the same change twice; readers do not take it.
    let loading = Mutex(())
    /// Told the key of each clone `expireClones` removed, to clear what else the clone's run left.
    let expiryObservers = Mutex<[@Sendable (String) -> Void]>([])

    package init(
        directory: String, keys: KeyStore, revisions: any GronaStorage, clock: ServerClock, logger: Logger,
        shared: any SharedRuntime = LocalRuntime()
    ) {
        self.directory = directory
        self.revisions = revisions
        self.clock = clock
        self.shared = shared
        self.logger = logger
        state = Mutex(State(keys: keys, keyStamps: Self.keyStamps(keys.directory)))
    }

    // MARK: - Reading

    package func entry(for workspaceKey: String) -> Entry? {
        state.withLock { $0.entries[workspaceKey] }
    }

    /// The workspace whose secret key this is. Every secret of every workspace is compared in constant
    /// time, so the answer's timing says nothing about how close a guess came.
    package func entry(forSecret secret: String) -> Entry? {
        let entries = state.withLock { Array($0.entries.values) }
        var found: Entry?
        for entry in entries {
            for candidate in entry.workspace.secretKeys where ConstantTime.equals(candidate, secret) {
                found = entry
            }
        }
        return found
    }

    package var workspaceKeys: [String] {
        state.withLock { $0.entries.keys.sorted() }
    }

    package var keys: KeyStore {
        state.withLock { $0.keys }
    }

    // MARK: - Loading

    /// Loads every `<workspaceKey>.json` in the directory, and drops workspaces whose file is gone.
    @discardableResult
    package func loadDirectory() -> [FileReport] {
        loading.withLock { _ in reload(force: true) }
    }

    /// Every file, loaded again; the caller holds `loading`.
    func reloadAll() -> [FileReport] { reload(force: true) }

    /// Reloads files whose stamp changed since the last look (and all of them when a key changed).
    @discardableResult
    package func reloadChangedFiles() -> [FileReport] {
        loading.withLock { _ in reload(force: false) }
    }

    /// Loads the files whose stamp changed (every file with `force`); the caller holds `loading`.
    func reload(force: Bool) -> [FileReport] {
        var forceAll = force
        let keyStamps = Self.keyStamps(keys.directory)
        if keyStamps != state.withLock({ $0.keyStamps }) {
            reloadKeys(stamps: keyStamps)
            forceAll = true
        }
        let names: [String]
        do {
            names = try FileSystem.list(directory).filter { $0.hasSuffix(".json") }
        } catch {
            if force { logger.warning("no workspaces loaded", [("reason", "\(error)")]) }
            return []
        }
        let paths = Set(names.map { directory + "/" + $0 })
        // Vanished files go first: a file renamed in one step must not clash with its own old entry.
        var reports = removeEntries(notIn: paths)
        for name in names {
            let path = directory + "/" + name
            let stamp = FileSystem.stamp(path)
            let key = String(name.dropLast(5))
            let (unchanged, overridden) = state.withLock {
                ($0.stamps[path] == stamp, $0.entries[key].map { $0.origin != .file } ?? false)
            }
            state.withLock { $0.stamps[path] = stamp }
            // A run-time change hides its file until a reset.
            if (unchanged && !forceAll) || overridden { continue }
            reports.append(loadFile(path, workspaceKey: String(name.dropLast(5))))
        }
        state.withLock { $0.fileErrors = $0.fileErrors.filter { paths.contains($0.key) } }
        // A file refused because of another (a shared secret key) gets another chance once something changed.
        let changed = reports.contains { $0.outcome != .rejected(keptRevision: nil) }
        if changed {
            let loaded = Set(reports.map(\.path))
            for path in state.withLock({ $0.fileErrors.keys.sorted() }) where !loaded.contains(path) {
                let name = String(path.dropFirst(directory.count + 1))
                reports.append(loadFile(path, workspaceKey: String(name.dropLast(5))))
            }
        }
        return reports
    }

    private func loadFile(_ path: String, workspaceKey: String) -> FileReport {
        let previous = entry(for: workspaceKey)
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path, maxBytes: 8 * 1024 * 1024)
        } catch {
            return rejected(path, [ValidationProblem(.error, .root, "\(error)")], previous: previous)
        }
        guard Identifiers.isWorkspaceKey(workspaceKey) else {
            let reason =
                "the file name is not <workspaceKey>.json with a key like acme-market ([a-z0-9][a-z0-9-]{0,62})"
            return rejected(path, [ValidationProblem(.error, .root, reason)], previous: previous)
        }
        let document: JSONValue
        do {
            document = try JSONParser().parse(bytes)
        } catch {
            return rejected(path, [ValidationProblem(.error, .root, "not valid JSON: \(error)")], previous: previous)
        }
        let outcome = WorkspaceValidator.validate(document, expectedKey: workspaceKey, keyIDs: Set(keys.keyIDs))
        var problems = outcome.problems + secretConflicts(outcome.workspace)
        guard let workspace = outcome.workspace, !problems.contains(where: { $0.severity == .error }) else {
            return rejected(path, problems, previous: previous)
        }
        do {
            let entry = try install(workspace, sourcePath: path, problems: problems, source: document, origin: .file)
            for warning in problems {
                logger.warning("workspace file warning", [("file", path), ("problem", "\(warning)")])
            }
            if previous?.configuration.revision != entry.configuration.revision {
                logger.info(
                    "serving workspace",
                    [("workspace", workspace.key), ("revision", entry.configuration.revision), ("file", path)])
            }
            state.withLock { $0.fileErrors[path] = nil }
            return FileReport(path: path, outcome: .served(revision: entry.configuration.revision), problems: problems)
        } catch {
            problems.append(ValidationProblem(.error, .root, "could not sign the configuration: \(error)"))
            return rejected(path, problems, previous: previous)
        }
    }

    /// Signs (or reuses) the revision for `workspace` and serves it.
    @discardableResult
    func install(
        _ workspace: Workspace, sourcePath: String?, problems: [ValidationProblem], source: JSONValue, origin: Origin
    ) throws -> Entry {
        let keys = self.keys
        let stored = try revisions.configRevision(
            for: workspace.key, contentHash: ConfigurationSigner.contentHash(for: workspace, keys: keys)
        ) { revision in
            try ConfigurationSigner.sign(workspace, revision: revision, issuedAt: clock.nowSeconds(), keys: keys)
        }
        let entry = Entry(
            workspace: workspace, configuration: SignedConfiguration(workspaceKey: workspace.key, stored: stored),
            sourcePath: sourcePath, problems: problems, source: source, origin: origin)
        state.withLock { $0.entries[workspace.key] = entry }
        return entry
    }

    private func rejected(_ path: String, _ problems: [ValidationProblem], previous: Entry?) -> FileReport {
        if let first = problems.first(where: { $0.severity == .error }) {
            state.withLock { $0.fileErrors[path] = first.description }
        }
        for problem in problems where problem.severity == .error {
            logger.error("workspace file has an error", [("file", path), ("problem", "\(problem)")])
        }
        if let previous {
            logger.warning(
                "keeping the last good revision",
                [("workspace", previous.workspace.key), ("revision", previous.configuration.revision)])
        } else {
            logger.warning("workspace not served until its file is fixed", [("file", path)])
        }
        return FileReport(
            path: path, outcome: .rejected(keptRevision: previous?.configuration.revision), problems: problems)
    }

    /// A secret key picks the workspace on the grants endpoint, so no two workspaces may share one: a file
    /// whose secret another served workspace holds is an error naming both (files are loaded in name order,
    /// so which one is served never depends on the directory's order).
    func secretConflicts(_ workspace: Workspace?) -> [ValidationProblem] {
        guard let workspace else { return [] }
        let others = state.withLock { $0.entries.values.filter { $0.workspace.key != workspace.key } }
        var problems: [ValidationProblem] = []
        for (index, secret) in workspace.secretKeys.enumerated() {
            if let owner = others.first(where: { $0.workspace.secretKeys.contains(secret) }) {
                let source = owner.sourcePath.map { "file \($0)" } ?? "set at run time (\(owner.origin.rawValue))"
                problems.append(
                    ValidationProblem(
                        .error, JSONPath.root.appending("secretKeys").appending(index),
                        "this secret key is already used by workspace \"\(owner.workspace.key)\" (\(source))"))
            }
        }
        return problems
    }

    /// The other served workspace that holds one of `workspace`'s secret keys, if any.
    func secretOwner(of workspace: Workspace) -> Entry? {
        let secrets = Set(workspace.secretKeys)
        return state.withLock { state in
            state.entries.values.first {
                $0.workspace.key != workspace.key && !secrets.isDisjoint(with: $0.workspace.secretKeys)
            }
        }
    }

    private func removeEntries(notIn paths: Set<String>) -> [FileReport] {
        let removed = state.withLock { state -> [Entry] in
            let gone = state.entries.values.filter { entry in
                entry.origin == .file && (entry.sourcePath.map { !paths.contains($0) } ?? false)
            }
            for entry in gone {
                state.entries[entry.workspace.key] = nil
                if let path = entry.sourcePath { state.stamps[path] = nil }
            }
            return gone
        }
        return removed.compactMap { entry in
            guard let path = entry.sourcePath else { return nil }
            logger.info(
                "workspace file removed; no longer served", [("workspace", entry.workspace.key), ("file", path)])
            return FileReport(path: path, outcome: .removed, problems: [])
        }
    }

    func reloadKeys(stamps: [String: String]) {
        let directory = keys.directory
        do {
            let (store, problems) = try KeyStore.load(from: directory)
            for problem in problems { logger.error("signing key not loaded", [("problem", problem)]) }
            state.withLock {
                $0.keys = store
                $0.keyStamps = stamps
            }
        } catch {
            logger.error("signing keys not reloaded", [("reason", "\(error)")])
            state.withLock { $0.keyStamps = stamps }
        }
    }

    static func keyStamps(_ directory: String) -> [String: String] {
        let names = (try? FileSystem.list(directory)) ?? []
        var stamps: [String: String] = [:]
        for name in names where name.hasSuffix(".pem") {
            stamps[name] = FileSystem.stamp(directory + "/" + name) ?? ""
        }
        return stamps
    }
}
