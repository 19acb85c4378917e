import GronaHTTP
import GronaJSON

/// The release of grona-mock, reported by `--version` and the health endpoint.
public enum GronaMockVersion {
    public static let current = "0.1.0"
}

extension GronaMockVersion {
    /// The system libraries linked at run time, for `--version` and bug reports.
    public static var libraries: String {
        "\(LibCrypto.version), SQLite \(Database.libraryVersion), zlib \(Gzip.libraryVersion)"
    }
}
