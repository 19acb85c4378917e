/// The configuration in use and where it came from (service protocol, "Configuration"): the bundled one until
/// the network gives a verified one; a refused document changes nothing; a revision lower than the one in use
/// is a rollback and refused.
public struct ConfigurationStore: Sendable {
    public enum Source: String, Sendable {
        case network, bundle
    }

    public struct Loaded: Sendable {
        public var configuration: Configuration
        public var source: Source
        /// The ETag it was served with, for `If-None-Match`; a bundled document has none.
        public var etag: String?
    }

    public enum State: Sendable {
        case empty
        case loaded(Loaded)
    }

    public enum Outcome: Sendable {
        /// Now in use; `previous` was in use before (nil at the first).
        case adopted(previous: Configuration?)
        /// Refused: the one in use stays.
        case refused(String)
    }

    public private(set) var state: State = .empty
    public let mutation: Mutation?

    public init(mutation: Mutation?) {
        self.mutation = mutation
    }

    public var current: Loaded? {
        if case .loaded(let loaded) = state { return loaded }
        return nil
    }

    /// A verified configuration from `source`: adopted unless it would roll back to a lower revision.
    public mutating func offer(_ configuration: Configuration, source: Source, etag: String?) -> Outcome {
        let previous = current?.configuration
        if let previous, configuration.revision < previous.revision, mutation != .acceptRollback {
            return .refused("revision \(configuration.revision) is lower than \(previous.revision), in use")
        }
        state = .loaded(Loaded(configuration: configuration, source: source, etag: etag))
        return .adopted(previous: previous)
    }
}
