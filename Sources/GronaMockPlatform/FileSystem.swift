#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file operations the engine needs, over POSIX: whole-file reads with a size cap, directory
/// listings, atomic writes, and modification stamps for hot reload.
package enum FileSystem {
    /// A file that could not be read or written, with the path and the system's reason.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, for callers that word their own message.
        package enum Kind: Sendable, Equatable {
            /// The system refused (missing, no permission, an I/O error): `reason` says why.
            case unreadable(reason: String)
            case notARegularFile
            case tooLarge(limit: Int)
        }

        package let kind: Kind
        package let description: String

        init(_ kind: Kind, _ description: String) {
            self.kind = kind
            self.description = description
        }

        /// The system's reason, or the description when there is none.
        package var reason: String {
            if case .unreadable(let reason) = kind { return reason }
            return description
        }

        /// The system's refusal of `what` just now, with errno's reason.
        static func system(_ what: String) -> Failure {
            let reason = String(cString: strerror(errno))
            return Failure(.unreadable(reason: reason), "\(what): \(reason)")
        }
    }

    /// The whole file; fails for anything but a regular file, or one over `maxBytes`.
    package static func read(_ path: String, maxBytes: Int = 16 * 1024 * 1024) throws(Failure) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO dropped into the folder must not block the caller (the reload lock,
        // start-up); it is refused below as not a regular file. Reads of a regular file ignore the flag.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .system("cannot open \(path)") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system("cannot stat \(path)") }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(.notARegularFile, "\(path) is not a regular file")
        }
        guard Int(info.st_size) <= maxBytes else { throw tooLarge(path, maxBytes) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system("cannot read \(path)")
            }
            if count == 0 { break }
            bytes += chunk[..<count]
            // The file may grow after the fstat.
            guard bytes.count <= maxBytes else { throw tooLarge(path, maxBytes) }
        }
        return bytes
    }

    private static func tooLarge(_ path: String, _ limit: Int) -> Failure {
        Failure(.tooLarge(limit: limit), "\(path) is larger than \(limit) bytes")
    }

    /// Names in a directory (no `.` entries), sorted so that every listing is in the same order.
    package static func list(_ directory: String) throws(Failure) -> [String] {
        guard let handle = opendir(directory) else { throw .system("cannot read directory \(directory)") }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = Self.name(of: entry)
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    /// The name of an entry `readdir` returned, read in place, up to its NUL: a record is only as long as its
    /// name (`d_reclen`), so copying `entry.pointee` whole (sizeof(struct dirent)) can read past the end of the
    /// directory's buffer.
    package static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
        return String(cString: UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
    }

    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// A file's size in bytes, or nil when it does not exist.
    package static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Creates a directory and any missing parents (mode 0755); an existing directory is fine.
    package static func createDirectory(_ path: String) throws(Failure) {
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            partial += "/" + component
            if isDirectory(partial) { continue }
            guard mkdir(partial, 0o755) == 0 || isDirectory(partial) else {
                throw .system("cannot create directory \(partial)")
            }
        }
    }

    /// The absolute path with every symbolic link and `..` resolved, or nil when it does not exist.
    package static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// A stamp that changes when the file is replaced or edited: modification time, size and inode.
    package static func stamp(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Glibc)
        let modified = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        #else
        let modified = "\(info.st_mtimespec.tv_sec).\(info.st_mtimespec.tv_nsec)"
        #endif
        return "\(modified):\(info.st_size):\(info.st_ino)"
    }

    /// Writes through a temporary file and a rename, so a reader never sees half a file; `mode` sets the
    /// permissions (0600 for private keys). Refuses to replace an existing file unless `replace` is set.
    package static func write(
        _ bytes: [UInt8], to path: String, mode: mode_t = 0o644, replace: Bool = true
    ) throws(Failure) {
        if !replace && exists(path) { throw Failure(.unreadable(reason: "it exists"), "\(path) already exists") }
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .system("cannot create \(temporary)") }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let failure = Failure.system("cannot write \(temporary)")
                close(fd)
                unlink(temporary)
                throw failure
            }
            offset += written
        }
        // Closed whatever fsync says, so a failing disk does not leak a descriptor per write.
        let synced = fsync(fd) == 0
        let syncReason = synced ? "" : reason()
        let closed = close(fd) == 0
        guard synced && closed else {
            let failure =
                synced
                ? Failure.system("cannot write \(temporary)")
                : Failure(.unreadable(reason: syncReason), "cannot write \(temporary): \(syncReason)")
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let failure = Failure.system("cannot move \(temporary) to \(path)")
            unlink(temporary)
            throw failure
        }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}

#if canImport(Glibc)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    Glibc.read(fd, buffer, count)
}
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    Glibc.write(fd, buffer, count)
}
#else
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    Darwin.read(fd, buffer, count)
}
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    Darwin.write(fd, buffer, count)
}
#endif
