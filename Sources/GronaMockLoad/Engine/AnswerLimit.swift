/// How many body bytes of an answer the load client keeps, by what it asked for. An answer that passes its
/// limit is given up there as `answer_too_large`: nothing more of it is read, and its connection is closed (it
/// cannot carry another request in the middle of a body). Each limit is what the contract's largest answer can
/// be, with room, so that a Grona service never meets one; a target that streams without end costs this much
/// per answer and no more (it used to cost 32 MiB per request in flight: 3 GB with 300 installs).
package enum AnswerLimit {
    /// A signed configuration (contract §4). The engine takes a workspace of at most 8 MiB
    /// (`WorkspaceRoutes.bodyLimit`, and the same for a workspace file), and its payload is the workspace's
    /// config re-serialized compactly, no larger. The JWS carries the payload in base64url (4/3 of it: 10⅔ MiB)
    /// with a protected header and a signature of about 200 bytes per key: 12 MiB holds the largest
    /// configuration the engine can sign, with room for many keys.
    package static let configuration = 12 * 1024 * 1024

    /// An events acknowledgement (contract §7): two counts and the rejected events, at most 500 (a batch's
    /// limit), each an index, an eventID of at most 64 characters, a field path and a reason: about 300 bytes
    /// each, so some 150 KiB when a whole batch is refused.
    package static let events = 256 * 1024

    /// A grants answer (contract §6): one compact JWS of about 700 bytes per live offer campaign the customer
    /// is assigned. 256 KiB is some 370 grants, ten times the 32 the fleet verifies (`GrantCheck.maximumTokens`).
    package static let grants = 256 * 1024

    /// A JWKS (contract §6): about 200 bytes per key; 256 KiB is a thousand keys.
    package static let keys = 256 * 1024

    /// The run's own pages of `/_mock/events` for `--verify`: 1,000 events of at most 32 KiB each. One such
    /// request is in flight at a time, never one per install.
    package static let inspection = HTTPResponseParser.maximumBodyBytes

    /// A size as the report says it: `12 MiB`, `256 KiB`.
    package static func text(_ bytes: Int) -> String {
        bytes % (1024 * 1024) == 0 ? "\(bytes / (1024 * 1024)) MiB" : "\(bytes / 1024) KiB"
    }

    /// The limit of an endpoint the fleet calls.
    package static func bytes(for endpoint: LoadEndpoint) -> Int {
        switch endpoint {
        case .config: configuration
        case .grants: grants
        case .events: events
        }
    }
}
