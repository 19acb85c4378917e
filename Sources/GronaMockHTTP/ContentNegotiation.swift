/// The request fields that pick a representation: `Accept-Encoding` (RFC 9110 §12.5.3) and
/// `If-None-Match` (RFC 9110 §13.1.2).
package enum ContentNegotiation {
    /// Whether the client accepts gzip: `gzip` (or `x-gzip`, or `*` when gzip is not named) with q > 0.
    package static func acceptsGzip(_ headers: HTTPHeaders) -> Bool {
        var gzip: Double?
        var wildcard: Double?
        for element in headers.values("Accept-Encoding").flatMap({ $0.split(separator: ",") }) {
            let parts = element.split(separator: ";")
            guard let coding = parts.first?.trimmingASCIIWhitespace().lowercasedASCII() else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingASCIIWhitespace().lowercasedASCII()
                if pair.hasPrefix("q=") { quality = Double(pair.dropFirst(2)) ?? 0 }
            }
            switch coding {
            case "gzip", "x-gzip": gzip = max(gzip ?? 0, quality)
            case "*": wildcard = quality
            default: break
            }
        }
        return (gzip ?? wildcard ?? 0) > 0
    }

    /// Whether `If-None-Match` names `etag` (weak comparison, as §13.1.2 requires) or is `*`.
    package static func noneMatchHits(_ headers: HTTPHeaders, etag: String) -> Bool {
        let target = opaque(etag)
        for value in headers.values("If-None-Match") {
            if value.trimmingASCIIWhitespace() == "*" { return true }
            if entityTags(in: value).contains(target) { return true }
        }
        return false
    }

    /// The quoted opaque tags of a list, without any `W/` prefix. Commas may sit inside the quotes.
    private static func entityTags(in value: String) -> [Substring] {
        var tags: [Substring] = []
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "\"") {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "\"") else { break }
            tags.append(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        return tags
    }

    private static func opaque(_ etag: String) -> Substring {
        etag.hasPrefix("W/") ? etag.dropFirst(2) : Substring(etag)
    }
}
