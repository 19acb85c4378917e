#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The regular files of one directory, read once before the server starts and served from memory, so that
/// serving costs no disk I/O on an event loop. For app tests that load images from a mock server, and for a
/// benchmark that needs the same bytes served here and by another server.
///
/// Only the directory's own files are served. Names come from the listing, never from a request, so `..`
/// reaches nothing; a name whose real path leads out of the directory (a symbolic link to `/etc/passwd` or
/// a private key) is left out and listed in `outside`. Subdirectories and names starting with `.` are
/// skipped.
package struct StaticFiles: Sendable {
    package static let maxFileBytes = 16 * 1024 * 1024
    package static let maxFiles = 1000

    package struct File: Sendable {
        package let bytes: [UInt8]
        package let contentType: String
    }

    package let files: [String: File]
    /// Names left out because they resolve outside the directory (or nowhere: a dangling link).
    package let outside: [String]

    /// Reads every regular file of `directory`; throws, naming the directory or the file, when one cannot be
    /// read, is not a regular file (a FIFO would block the start), or passes a limit.
    package static func load(from directory: String) throws(StaticFilesError) -> StaticFiles {
        guard let root = realPath(directory) else {
            throw .notADirectory(directory, reason: String(cString: strerror(errno)))
        }
        guard isDirectory(root) else { throw .notADirectory(directory, reason: nil) }
        var files: [String: File] = [:]
        var outside: [String] = []
        for name in try names(in: root, shown: directory) where !isDirectory(root + "/" + name) {
            guard let path = realPath(root + "/" + name), path.hasPrefix(root + "/") else {
                outside.append(name)
                continue
            }
            guard files.count < maxFiles else { throw .tooManyFiles(directory, limit: maxFiles) }
            files[name] = File(bytes: try read(path), contentType: contentType(of: name))
        }
        return StaticFiles(files: files, outside: outside)
    }

    /// Serves each file at `pattern`, whose `{name}` parameter is the file's name (`/static/{name}`), with its
    /// content type and `Cache-Control: no-cache`; any other name is 404.
    package func register(on router: inout Router, at pattern: String) {
        let files = self.files
        router.on(.get, pattern) { request in
            guard let name = request.pathParameters["name"], let file = files[name] else {
                throw HTTPError.notFound(request.path)
            }
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": file.contentType, "Cache-Control": "no-cache"],
                body: file.bytes)
        }
    }

    private static func contentType(of name: String) -> String {
        let suffix = name.split(separator: ".").last.map { $0.lowercasedASCII() } ?? ""
        switch suffix {
        case "json": return "application/json"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "webp": return "image/webp"
        case "gif": return "image/gif"
        case "svg": return "image/svg+xml"
        case "txt": return "text/plain; charset=utf-8"
        case "html": return "text/html; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    // MARK: - Files

    /// The absolute path with every symbolic link and `..` resolved, or nil (errno says why).
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The names in `root`, without those starting with `.`, sorted so that every load sees the same order.
    private static func names(in root: String, shown directory: String) throws(StaticFilesError) -> [String] {
        guard let handle = opendir(root) else {
            throw .unreadableDirectory(directory, reason: String(cString: strerror(errno)))
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    /// The whole file. O_NONBLOCK so that opening a FIFO does not block the start; it is then refused as not
    /// a regular file. Reads of a regular file ignore the flag.
    private static func read(_ path: String) throws(StaticFilesError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .unreadableFile(path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadableFile(path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile(path) }
        guard Int(info.st_size) <= maxFileBytes else { throw .fileTooLarge(path, limit: maxFileBytes) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadableFile(path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes += chunk[..<count]
            // The file may grow after the fstat.
            guard bytes.count <= maxFileBytes else { throw .fileTooLarge(path, limit: maxFileBytes) }
        }
        return bytes
    }
}

/// Why a static directory could not be loaded, as a sentence that names the directory or the file.
package enum StaticFilesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason is the system's when the path does not resolve, nil when it is something else.
    case notADirectory(String, reason: String?)
    case unreadableDirectory(String, reason: String)
    case tooManyFiles(String, limit: Int)
    case unreadableFile(String, reason: String)
    case notARegularFile(String)
    case fileTooLarge(String, limit: Int)

    package var description: String {
        switch self {
        case .notADirectory(let directory, let reason):
            "\(directory) is not a directory" + (reason.map { " (\($0))" } ?? "")
        case .unreadableDirectory(let directory, let reason): "cannot read the directory \(directory): \(reason)"
        case .tooManyFiles(let directory, let limit): "\(directory) holds over \(limit) files"
        case .unreadableFile(let path, let reason): "cannot read \(path): \(reason)"
        case .notARegularFile(let path): "\(path) is not a regular file"
        case .fileTooLarge(let path, let limit): "\(path) is larger than \(limit) bytes"
        }
    }
}

#if canImport(Glibc)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    Glibc.read(fd, buffer, count)
}
#else
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    Darwin.read(fd, buffer, count)
}
#endif
