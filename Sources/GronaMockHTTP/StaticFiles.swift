import GronaMockPlatform

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
        guard let root = FileSystem.resolvedPath(directory) else {
            throw .notADirectory(directory, reason: String(cString: strerror(errno)))
        }
        guard FileSystem.isDirectory(root) else { throw .notADirectory(directory, reason: nil) }
        var files: [String: File] = [:]
        var outside: [String] = []
        for name in try names(in: root, shown: directory) where !FileSystem.isDirectory(root + "/" + name) {
            guard let path = FileSystem.resolvedPath(root + "/" + name), path.hasPrefix(root + "/") else {
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

    /// The names in `root`, sorted, without those starting with `.`.
    private static func names(in root: String, shown directory: String) throws(StaticFilesError) -> [String] {
        do {
            return try FileSystem.list(root)
        } catch {
            throw .unreadableDirectory(directory, reason: error.reason)
        }
    }

    /// The whole file; a FIFO does not block the start (FileSystem opens with O_NONBLOCK), it is refused.
    private static func read(_ path: String) throws(StaticFilesError) -> [UInt8] {
        do {
            return try FileSystem.read(path, maxBytes: maxFileBytes)
        } catch {
            switch error.kind {
            case .unreadable(let reason): throw .unreadableFile(path, reason: reason)
            case .notARegularFile: throw .notARegularFile(path)
            case .tooLarge(let limit): throw .fileTooLarge(path, limit: limit)
            }
        }
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
