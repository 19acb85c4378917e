import GronaMockJSON
import GronaMockPlatform

/// The workspaces being served and their signed configurations: loaded from `workspaces/`, reloaded when a
/// file changes, changed at run time, readable from any thread.
///
/// A file with errors is not served; an edit that breaks a served file keeps its last good revision serving,
/// and every error is logged. Revisions come from the database, so they never go back.
///
/// The jobs are split into types that each own their lock and state: `ServedWorkspaces` (what is served, by
/// key and by secret; readers take only its lock), `KeyRing` (the signing keys), `ConfigurationRevisions`
/// (signing and revisions), `CloneExpiries` (clones' deadlines) and `WorkspaceFiles` (the files as last seen).
/// Run-time edits are `+Runtime.swift`, clones `+Clones.swift`, other instances' changes `+Shared.swift`. Changes run one at a time in the change lane
/// (`lane`): a method that must run inside it takes the lane's `inout ChangeLane`, so the compiler, not a
/// comment, says who holds it. Lock order: the lane, then any of the others; never the reverse.
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

    /// When a clone made with `ttlSeconds` is removed (see `CloneExpiries`).
    package struct CloneExpiry: Sendable, Equatable {
        package let ttlSeconds: Int
        /// `MonotonicClock` nanoseconds.
        package let deadline: UInt64

        /// Nanoseconds left at `now` (a `MonotonicClock` reading), 0 once passed.
        package func remaining(at now: UInt64) -> UInt64 { deadline > now ? deadline - now : 0 }
    }

    /// The time to live a clone may be given: a second to a day.
    package static let cloneTTLSeconds: ClosedRange<Int> = 1...86_400

    /// The state only changes touch, owned by the change lane.
    struct ChangeLane {
        var files: WorkspaceFiles
    }

    package let directory: String
    let served = ServedWorkspaces()
    let keyRing: KeyRing
    let expiries = CloneExpiries()
    let revisions: ConfigurationRevisions
    let clock: ServerClock
    /// Where run-time changes are told to the other instances on the same database (nothing, alone).
    let shared: any SharedRuntime
    let logger: Logger
    /// The most clones served at once; a clone past it is refused (`ChangeError.tooManyClones`).
    package let maxClones: Int
    /// Changes one at a time, so that two reloads never sign the same change twice and every instance hears
    /// of changes in the order they were applied. Readers never take it.
    let lane: Mutex<ChangeLane>
    private let listeners = Mutex<[@Sendable (WorkspaceChange) -> Void]>([])

    package init(
        directory: String, keys: KeyStore, revisions: any GronaStorage, clock: ServerClock, logger: Logger,
        shared: any SharedRuntime = LocalRuntime(), maxClones: Int = GronaMockConfiguration.defaultMaxClones
    ) {
        self.directory = directory
        self.revisions = ConfigurationRevisions(store: revisions, clock: clock)
        self.clock = clock
        self.shared = shared
        self.logger = logger
        self.maxClones = maxClones
        keyRing = KeyRing(keys, logger: logger)
        lane = Mutex(ChangeLane(files: WorkspaceFiles(directory: directory)))
    }

    // MARK: - Reading

    package func entry(for workspaceKey: String) -> Entry? { served.entry(for: workspaceKey) }

    /// The workspace whose secret key this is: a hash lookup whatever the number of workspaces, whose time
    /// says nothing about how close a guess came (`SecretIndex`).
    package func entry(forSecret secret: String) -> Entry? { served.entry(forSecret: secret) }

    package var workspaceKeys: [String] { served.keys }

    /// How many workspaces are served now.
    package var servedCount: Int { served.count }

    /// How many of them are clones.
    package var cloneCount: Int { served.cloneCount }

    package var keys: KeyStore { keyRing.keys }

    /// Files whose last load failed, with the first error of each, in file order.
    package var loadErrors: [(file: String, message: String)] { served.fileErrors }

    /// The time to live of clone `key`, if it was given one.
    package func expiry(of key: String) -> CloneExpiry? { expiries.expiry(of: key) }

    // MARK: - Listening

    /// Adds a listener told every change, in order, while the change lane is held: it must be quick (a
    /// listener that waits delays the next change, never a request that only reads).
    package func onChange(_ listener: @escaping @Sendable (WorkspaceChange) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    /// Tells the listeners of a change just applied.
    func announce(_ cause: WorkspaceChange.Cause, key: String, in lane: inout ChangeLane) {
        let change = WorkspaceChange(
            workspaceKey: key, cause: cause, served: served.entry(for: key), at: clock.nowMilliseconds())
        for listener in listeners.withLock({ $0 }) { listener(change) }
    }

    // MARK: - Loading

    /// Loads every `<workspaceKey>.json` in the directory, and drops workspaces whose file is gone.
    @discardableResult
    package func loadDirectory() -> [FileReport] {
        lane.withLock { reload(force: true, in: &$0) }
    }

    /// Reloads files whose stamp changed since the last look (and all of them when a key changed).
    @discardableResult
    package func reloadChangedFiles() -> [FileReport] {
        lane.withLock { reload(force: false, in: &$0) }
    }

    /// Loads the files whose stamp changed (every file with `force`, or when a signing key changed).
    func reload(force: Bool, in lane: inout ChangeLane) -> [FileReport] {
        let keysChanged = keyRing.reloadIfChanged()
        let scan: WorkspaceFiles.Scan
        do {
            scan = try lane.files.scan(force: force || keysChanged)
        } catch {
            if force { logger.warning("no workspaces loaded", [("reason", "\(error)")]) }
            return []
        }
        // Vanished files go first: a file renamed in one step must not clash with its own old entry.
        var reports = removeEntries(notIn: scan.paths, in: &lane)
        for (key, path) in scan.changed {
            // A run-time change hides its file until a reset.
            if let current = served.entry(for: key), current.origin != .file { continue }
            reports.append(loadFile(path, workspaceKey: key, in: &lane))
        }
        served.keepFileErrors(of: scan.paths)
        // A file refused because of another (a shared secret key) gets another chance once something changed.
        if reports.contains(where: { $0.outcome != .rejected(keptRevision: nil) }) {
            let loaded = Set(reports.map(\.path))
            for (path, _) in served.fileErrors where !loaded.contains(path) {
                let name = String(path.dropFirst(directory.count + 1))
                reports.append(loadFile(path, workspaceKey: String(name.dropLast(5)), in: &lane))
            }
        }
        return reports
    }

    private func loadFile(_ path: String, workspaceKey: String, in lane: inout ChangeLane) -> FileReport {
        let previous = entry(for: workspaceKey)
        guard IdentifierKind.workspaceKey.isValid(workspaceKey) else {
            let reason =
                "the file name is not <workspaceKey>.json with \(IdentifierKind.workspaceKey.described) "
                + "like acme-market (\(IdentifierKind.workspaceKey.grammar))"
            return rejected(path, [ValidationProblem(.error, .root, reason)], previous: previous)
        }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path, maxBytes: 8 * 1024 * 1024)
        } catch {
            return rejected(path, [ValidationProblem(.error, .root, "\(error)")], previous: previous)
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
        do throws(ChangeError) {
            let entry = try install(
                workspace, sourcePath: path, problems: problems, source: document, origin: .file, in: &lane)
            for warning in problems {
                logger.warning("workspace file warning", [("file", path), ("problem", "\(warning)")])
            }
            if previous?.configuration.revision != entry.configuration.revision {
                logger.info(
                    "serving workspace",
                    [("workspace", workspace.key), ("revision", entry.configuration.revision), ("file", path)])
            }
            served.clearFileError(path)
            announce(.fileLoaded(path: path), key: workspace.key, in: &lane)
            return FileReport(path: path, outcome: .served(revision: entry.configuration.revision), problems: problems)
        } catch {
            problems.append(ValidationProblem(.error, .root, error.httpError.message))
            return rejected(path, problems, previous: previous)
        }
    }

    /// Signs (or reuses) the revision for `workspace` and serves it. A storage that cannot be reached is
    /// `.unavailable` (a 503 that asking again may cure), any other failure `.failed`.
    @discardableResult
    func install(
        _ workspace: Workspace, sourcePath: String?, problems: [ValidationProblem], source: JSONValue, origin: Origin,
        in lane: inout ChangeLane
    ) throws(ChangeError) -> Entry {
        let entry = Entry(
            workspace: workspace, configuration: try revisions.signed(workspace, keys: keys), sourcePath: sourcePath,
            problems: problems, source: source, origin: origin)
        served.serve(entry)
        return entry
    }

    private func rejected(_ path: String, _ problems: [ValidationProblem], previous: Entry?) -> FileReport {
        if let first = problems.first(where: { $0.severity == .error }) {
            served.recordFileError(path, first.description)
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
        var problems: [ValidationProblem] = []
        for (index, secret) in workspace.secretKeys.enumerated() {
            guard let owner = served.owner(ofAny: [secret], except: workspace.key) else { continue }
            let source = owner.sourcePath.map { "file \($0)" } ?? "set at run time (\(owner.origin.rawValue))"
            problems.append(
                ValidationProblem(
                    .error, JSONPath.root.appending("secretKeys").appending(index),
                    "this secret key is already used by workspace \"\(owner.workspace.key)\" (\(source))",
                    blocksServing: true))
        }
        return problems
    }

    /// The file-served workspaces whose file is gone stop being served.
    private func removeEntries(notIn paths: Set<String>, in lane: inout ChangeLane) -> [FileReport] {
        served.fileEntries.compactMap { entry in
            guard let path = entry.sourcePath, !paths.contains(path) else { return nil }
            served.remove(entry.workspace.key)
            lane.files.forget(entry.workspace.key)
            logger.info(
                "workspace file removed; no longer served", [("workspace", entry.workspace.key), ("file", path)])
            announce(.fileRemoved(path: path), key: entry.workspace.key, in: &lane)
            return FileReport(path: path, outcome: .removed, problems: [])
        }
    }
}
