/// The dashboard's files, compiled in (`DashboardAssets.sources` is generated from `Dashboard/Assets` by the
/// `EmbedDashboardAssets` plugin), as the bytes served and their media type.
enum DashboardAssets {
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }

    /// Every file by name, made once from the literals.
    static let files: [String: File] = Dictionary(
        sources.map { ($0.name, File(bytes: Array($0.text.utf8), contentType: contentType(of: $0.name))) },
        uniquingKeysWith: { first, _ in first })

    /// The media types of the kinds of file the dashboard has; JavaScript modules must be served as
    /// JavaScript (WHATWG HTML §8.1.3.7) or the browser refuses them.
    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last.map(String.init) {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}
