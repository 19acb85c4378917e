import GronaHTTP
import GronaJSON

/// The files of one directory, read once at start and served from memory under `/_mock/static/<name>`.
///
/// For app tests that load `https` images from the mock, and for the HTTP benchmark, which needs the same
/// bytes served by grona-mock and by nginx. Read once so that serving costs no disk I/O.
struct StaticFiles: Sendable {
    static let maxFileBytes = 16 * 1024 * 1024
    static let maxFiles = 1000

    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }

    let files: [String: File]
    /// Names left out because they resolve outside the directory (a symbolic link out of it).
    let outside: [String]

    /// Reads the directory's regular files. A name whose real path is not inside the directory is left out,
    /// so a link cannot publish `/etc/passwd` or a private key.
    static func load(from directory: String) throws(StartupError) -> StaticFiles {
        do throws(FileSystem.Failure) {
            guard let root = FileSystem.resolvedPath(directory), FileSystem.isDirectory(root) else {
                throw FileSystem.Failure("\(directory) is not a directory")
            }
            var files: [String: File] = [:]
            var outside: [String] = []
            for name in try FileSystem.list(root) where !FileSystem.isDirectory(root + "/" + name) {
                guard let path = FileSystem.resolvedPath(root + "/" + name), path.hasPrefix(root + "/") else {
                    outside.append(name)
                    continue
                }
                guard files.count < maxFiles else {
                    throw FileSystem.Failure("\(directory) holds over \(maxFiles) files")
                }
                let bytes = try FileSystem.read(path, maxBytes: maxFileBytes)
                files[name] = File(bytes: bytes, contentType: contentType(of: name))
            }
            return StaticFiles(files: files, outside: outside)
        } catch {
            throw StartupError("cannot load the static directory: \(error)")
        }
    }

    static let pattern = "/_mock/static/{name}"

    func register(on router: inout Router) {
        let files = self.files
        router.on(.get, Self.pattern) { request in
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
}
