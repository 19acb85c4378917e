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

    static func load(from directory: String) throws(StartupError) -> StaticFiles {
        do throws(FileSystem.Failure) {
            var files: [String: File] = [:]
            for name in try FileSystem.list(directory) where !FileSystem.isDirectory(directory + "/" + name) {
                guard files.count < maxFiles else {
                    throw FileSystem.Failure("\(directory) holds over \(maxFiles) files")
                }
                let bytes = try FileSystem.read(directory + "/" + name, maxBytes: maxFileBytes)
                files[name] = File(bytes: bytes, contentType: contentType(of: name))
            }
            return StaticFiles(files: files)
        } catch {
            throw StartupError("cannot load the static directory: \(error)")
        }
    }

    func register(on router: inout Router) {
        let files = self.files
        router.on(.get, "/_mock/static/{name}") { request in
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
