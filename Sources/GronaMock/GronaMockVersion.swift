/// The release of grona-mock, reported by `--version` and the health endpoint.
public enum GronaMockVersion {
    public static let current = "0.1.0"
}

extension GronaMockVersion {
    /// The system libraries the engine links, for `--version` and bug reports (storage backends add their own).
    public static var libraries: String {
        "\(LibCrypto.version), zlib \(Gzip.libraryVersion)"
    }
}
