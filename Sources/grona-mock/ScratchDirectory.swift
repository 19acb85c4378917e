import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory of exec's own under TMPDIR (`grona-mock-exec.XXXXXX`) for the throw-away database, removed
/// with everything in it (the SQLite file, its -wal and -shm) when the run ends.
///
/// A run killed before it could remove it (SIGKILL with no watcher left, a crash, a power cut) leaves it
/// behind. So it holds an `owner` record, who made it (`ScratchOwner`), and every run removes the ones whose
/// owner is gone (`removeStale`): only directories of the current user, reached without following a
/// symbolic link, and never one without a record (an older grona-mock's, or one being made this instant).
struct ScratchDirectory {
    static let prefix = "grona-mock-exec."
    static let ownerFile = "owner"

    let path: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(in parent: String) throws(Failure) {
        var template = Array("\(parent)/\(Self.prefix)XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap(mkdtemp) }) else {
            throw Failure(
                description: "cannot create a temporary directory in \(parent): \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
        guard Self.writeOwner(ScratchOwner.current(), in: path) else {
            let reason = String(cString: strerror(errno))
            remove()
            throw Failure(description: "cannot write \(path)/\(Self.ownerFile): \(reason)")
        }
    }

    func remove() {
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { return }
        _ = Self.removeEntries(of: directory)
        close(directory)
        rmdir(path)
    }

    /// Removes the scratch directories in `parent` whose owner has gone; returns each one's path and owner.
    static func removeStale(in parent: String) -> [(path: String, owner: ScratchOwner)] {
        let directory = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return [] }
        defer { close(directory) }
        var removed: [(String, ScratchOwner)] = []
        for name in names(in: directory, prefix: prefix) {
            if let owner = remove(name, in: directory, when: \.isGone) { removed.append(("\(parent)/\(name)", owner)) }
        }
        return removed
    }

    /// Removes `path`, a scratch directory exec told the watcher of, if its record names `owner` (exec,
    /// which has just died); false when it was not removed.
    static func removeAbandoned(_ path: String, by owner: pid_t) -> Bool {
        guard let slash = path.lastIndex(of: "/") else { return false }
        let name = String(path[path.index(after: slash)...])
        let parent = slash == path.startIndex ? "/" : String(path[..<slash])
        guard name.hasPrefix(prefix) else { return false }
        let directory = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return false }
        defer { close(directory) }
        return remove(name, in: directory, when: { $0.pid == owner }) != nil
    }

    /// Removes the directory `name` in `parent` when it is one (not a link to one) of this user, holding an
    /// owner record that `shouldRemove` accepts. Its entries are unlinked where they are: a link among them
    /// is removed, never followed; anything that is not a file (a directory) keeps it.
    private static func remove(
        _ name: String, in parent: Int32, when shouldRemove: (ScratchOwner) -> Bool
    ) -> ScratchOwner? {
        let directory = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        defer { close(directory) }
        var info = stat()
        guard fstat(directory, &info) == 0, info.st_uid == getuid(),
            let record = ProcessStat.readSmallFile(ownerFile, relativeTo: directory),
            let owner = ScratchOwner(record: record), shouldRemove(owner),
            removeEntries(of: directory), unlinkat(parent, name, AT_REMOVEDIR) == 0
        else { return nil }
        return owner
    }

    private static func removeEntries(of directory: Int32) -> Bool {
        var removedAll = true
        for name in names(in: directory, prefix: "") where unlinkat(directory, name, 0) != 0 {
            removedAll = false
        }
        return removedAll
    }

    /// The names in an open directory that start with `prefix`, but `.` and `..`.
    private static func names(in directory: Int32, prefix: String) -> [String] {
        let copy = dup(directory)
        guard copy >= 0 else { return [] }
        guard let handle = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = FileSystem.name(of: entry)
            if name != ".", name != "..", name.hasPrefix(prefix) { names.append(name) }
        }
        return names
    }

    private static func writeOwner(_ owner: ScratchOwner, in path: String) -> Bool {
        let fd = open("\(path)/\(ownerFile)", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(owner.record.utf8)
        return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
    }
}

/// Who made a scratch directory: the pid of that `grona-mock exec`, with, on Linux, its start time, the
/// boot's id and its pid namespace, so that a later process given the same pid (or the same pid and start
/// time after a reboot) is not taken for it, and a run in another namespace (a container sharing TMPDIR,
/// where the pid names another process) does not judge it.
struct ScratchOwner: Equatable {
    var pid: pid_t
    var startTime: UInt64?
    var bootID: String?
    var pidNamespace: String?

    static func current() -> ScratchOwner {
        let pid = getpid()
        var startTime: UInt64?
        if case .found(let stat) = ProcessStat.lookUp(pid) { startTime = stat.startTime }
        return ScratchOwner(
            pid: pid, startTime: startTime, bootID: ProcessStat.bootID, pidNamespace: ProcessStat.pidNamespace)
    }

    /// `pid 1234`, then `start 5678`, `boot <id>` and `pidns <namespace>` lines where known.
    var record: String {
        "pid \(pid)\n" + (startTime.map { "start \($0)\n" } ?? "") + (bootID.map { "boot \($0)\n" } ?? "")
            + (pidNamespace.map { "pidns \($0)\n" } ?? "")
    }

    /// Nil for anything but a record as `record` writes it, with a pid above 1.
    init?(record bytes: [UInt8]) {
        var pid: pid_t?
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            switch parts[0] {
            case "pid": pid = pid_t(parts[1])
            case "start": startTime = UInt64(parts[1])
            case "boot": bootID = parts[1]
            case "pidns": pidNamespace = parts[1]
            default: return nil
            }
        }
        guard let pid, pid > 1 else { return nil }
        self.pid = pid
    }

    init(pid: pid_t, startTime: UInt64?, bootID: String?, pidNamespace: String? = nil) {
        self.pid = pid
        self.startTime = startTime
        self.bootID = bootID
        self.pidNamespace = pidNamespace
    }

    /// Whether that process has gone: another boot, no such process, a zombie, or another process with the
    /// pid (another start time). When nothing can be read, only a `kill` that finds no process says so; from
    /// another pid namespace nothing does.
    var isGone: Bool {
        if let bootID, let current = ProcessStat.bootID, bootID != current { return true }
        if let pidNamespace, pidNamespace != ProcessStat.pidNamespace { return false }
        switch ProcessStat.lookUp(pid) {
        case .found(let stat): return stat.hasEnded || (startTime.map { $0 != stat.startTime } ?? false)
        case .gone: return true
        case .unknown: return kill(pid, 0) != 0 && errno == ESRCH
        }
    }
}
