#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        guard let handle = opendir(directory) else {
            throw StartupError("cannot read the static directory \(directory): \(SystemError.last("opendir"))")
        }
        defer { closedir(handle) }
        var files: [String: File] = [:]
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            let path = directory + "/" + name
            guard let bytes = try readRegularFile(path) else { continue }
            guard files.count < maxFiles else { throw StartupError("\(directory) holds more than \(maxFiles) files") }
            files[name] = File(bytes: bytes, contentType: contentType(of: name))
        }
        return StaticFiles(files: files)
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

    /// The file's bytes, or nil for anything that is not a regular file (directories, sockets).
    private static func readRegularFile(_ path: String) throws(StartupError) -> [UInt8]? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard Int(info.st_size) <= maxFileBytes else {
            throw StartupError("\(path) is larger than \(maxFileBytes) bytes")
        }
        guard let file = fopen(path, "rb") else {
            throw StartupError("cannot read \(path): \(SystemError.last("fopen"))")
        }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let read = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        guard read == bytes.count else { throw StartupError("cannot read all of \(path)") }
        return bytes
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
