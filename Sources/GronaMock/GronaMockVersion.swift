/// The release of grona-mock, reported by `--version` and the health endpoint.
public enum GronaMockVersion {
    public static let current = "0.1.0"
}
