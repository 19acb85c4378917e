import GronaMockTLSCore

extension LoadSettings {
    /// The TLS client of an `https://` target: the system trust store, or the CA certificates of `caFile`
    /// (`--cacert`, PEM) instead, as curl's option of that name. Nil for `http://`, where `--cacert` is refused
    /// rather than ignored (it would say the server is checked when nothing is). A CA file that cannot be read or
    /// holds no certificate is refused here, before the run, with its stable code (`cacert_unreadable`,
    /// `cacert_invalid`).
    package static func tlsContext(url: String, caFile: String?) throws(OptionError) -> TLSClientContext? {
        guard url.hasPrefix("https://") else {
            if caFile != nil {
                throw OptionError("--cacert is for an https:// --url; \(redacted(url)) is not one")
            }
            return nil
        }
        do {
            return try TLSClientContext(caFile: caFile)
        } catch {
            throw OptionError(error.description)
        }
    }
}
