import GronaMockPlatform

/// The workspace files of the directory as last seen: each `<workspaceKey>.json` with its stamp, so that a
/// scan knows which files changed. A value owned by the registry's change lane: only changes touch it.
struct WorkspaceFiles {
    let directory: String
    /// Each file's stamp when it was last loaded.
    private var stamps: [String: String] = [:]

    init(directory: String) {
        self.directory = directory
    }

    /// One look at the directory: every workspace file in it, and those whose stamp changed since the last look
    /// (all of them with `force`).
    struct Scan {
        var paths: Set<String>
        /// Key and path of each file to load, in name order (so that which of two files sharing a secret key is
        /// served never depends on the directory's order).
        var changed: [(key: String, path: String)]
    }

    mutating func scan(force: Bool) throws(FileSystem.Failure) -> Scan {
        let names = try FileSystem.list(directory).filter { $0.hasSuffix(".json") }.sorted()
        var scan = Scan(paths: [], changed: [])
        for name in names {
            let path = directory + "/" + name
            scan.paths.insert(path)
            let stamp = FileSystem.stamp(path)
            if force || stamps[path] != stamp { scan.changed.append((String(name.dropLast(5)), path)) }
            stamps[path] = stamp
        }
        for path in stamps.keys where !scan.paths.contains(path) { stamps[path] = nil }
        return scan
    }

    /// Where the file of workspace `key` would be.
    func path(for key: String) -> String { directory + "/" + key + ".json" }

    /// The file of `key` is read again at the next scan, changed or not (a run-time change that hid it is gone).
    mutating func forget(_ key: String) {
        stamps[path(for: key)] = nil
    }

    mutating func forgetAll() {
        stamps = [:]
    }
}
