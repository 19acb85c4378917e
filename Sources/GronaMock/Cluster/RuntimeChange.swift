import GronaMockJSON

/// A run-time workspace change (contract §8) as one instance tells the others: the result of the change, not
/// the request, so that every instance serves the same document and none has to repeat a decision (a clone's
/// generated secret key travels in its document).
package enum RuntimeChange: Sendable, Equatable {
    /// Serve `document` as workspace `workspace` (a put, a kill or revive, a rotation, a clone).
    case serve(workspace: String, document: JSONValue, origin: WorkspaceRegistry.Origin, expiry: SharedExpiry?)
    /// Stop serving a clone.
    case removeClone(workspace: String)
    /// Back to the files: one workspace, or every one (nil).
    case reset(workspace: String?)

    /// The kinds, as stored.
    package enum Kind: String, Sendable, CaseIterable {
        case serve
        case removeClone = "remove_clone"
        case reset
    }

    package var kind: Kind {
        switch self {
        case .serve: .serve
        case .removeClone: .removeClone
        case .reset: .reset
        }
    }

    /// The workspace changed; nil for a reset of every workspace.
    package var workspace: String? {
        switch self {
        case .serve(let workspace, _, _, _), .removeClone(let workspace): workspace
        case .reset(let workspace): workspace
        }
    }

    /// What the kind and workspace do not say, as JSON: a served change's document, origin and expiry.
    package var payload: [UInt8] {
        guard case .serve(_, let document, let origin, let expiry) = self else { return Array("{}".utf8) }
        var object: JSONObject = ["document": document, "origin": .string(origin.rawValue)]
        if let expiry {
            object.set("ttlSeconds", .number(JSONNumber(expiry.ttlSeconds)))
            object.set("expiresAt", .number(JSONNumber(expiry.expiresAt)))
        }
        return JSONValue.object(object).serialized()
    }

    /// The change a stored row describes; nil for a row this version cannot read (it is logged and skipped).
    package init?(kind: String, workspace: String?, payload: [UInt8]) {
        switch Kind(rawValue: kind) {
        case .serve?:
            guard let workspace, let object = (try? JSONParser().parse(payload))?.objectValue,
                let document = object["document"],
                let origin = object["origin"]?.stringValue.flatMap(WorkspaceRegistry.Origin.init(rawValue:))
            else { return nil }
            var expiry: SharedExpiry?
            if let ttl = object["ttlSeconds"]?.int64Value.flatMap({ Int(exactly: $0) }),
                WorkspaceRegistry.cloneTTLSeconds.contains(ttl), let expiresAt = object["expiresAt"]?.int64Value,
                MockTime.range.contains(expiresAt)
            {
                expiry = SharedExpiry(ttlSeconds: ttl, expiresAt: expiresAt)
            }
            self = .serve(workspace: workspace, document: document, origin: origin, expiry: expiry)
        case .removeClone?:
            guard let workspace else { return nil }
            self = .removeClone(workspace: workspace)
        case .reset?:
            self = .reset(workspace: workspace)
        case nil:
            return nil
        }
    }
}

/// A clone's time to live as instances share it: the deadline in wall-clock Unix milliseconds, which every
/// instance reads alike (their monotonic clocks do not), turned into each one's own monotonic deadline.
package struct SharedExpiry: Sendable, Equatable {
    package let ttlSeconds: Int
    /// Unix epoch milliseconds, real time (not the mock's clock, as `CloneExpiry` explains).
    package let expiresAt: Int64

    package init(ttlSeconds: Int, expiresAt: Int64) {
        self.ttlSeconds = ttlSeconds
        self.expiresAt = expiresAt
    }
}
