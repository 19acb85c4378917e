import GronaMockJSON

/// The engine's results as the control API writes them: each route encodes what its one engine call returned.
/// docs/openapi.yaml has the schemas.
extension WorkspaceSummary {
    var json: JSONObject {
        var object: JSONObject = [
            "workspaceKey": .string(workspaceKey),
            "revision": .number(JSONNumber(revision)),
            "origin": .string(origin.rawValue),
            "configKeys": .array(configKeys.map { .string($0) }),
            "grantKeys": .array(grantKeys.map { .string($0) }),
            "problems": .array(
                problems.map { problem in
                    .object([
                        "severity": .string(problem.severity.rawValue), "path": .string("\(problem.path)"),
                        "reason": .string(problem.reason),
                    ])
                }),
        ]
        if let expiry {
            object.set("ttlSeconds", .number(JSONNumber(expiry.ttlSeconds)))
            object.set("expiresInMs", .number(JSONNumber(expiry.expiresInMilliseconds)))
            object.set("expiresAt", .number(JSONNumber(expiry.expiresAt)))
        }
        if let document { object.set("workspace", document) }
        return object
    }
}

extension WorkspaceList {
    var json: JSONValue {
        .object([
            "workspaces": .array(workspaces.map { .object($0.json) }),
            // A file whose edit was refused is not in the list (or is, at its last good revision): its error is
            // here, as health shows it, so that a reload that failed is not invisible.
            "errors": .array(
                fileErrors.map { error in .object(["file": .string(error.file), "message": .string(error.message)]) }),
        ])
    }
}

extension SDKOptions {
    var json: JSONValue {
        func map(_ keys: [(kid: String, spki: String)]) -> JSONValue {
            .object(JSONObject(keys.map { ($0.kid, .string($0.spki)) }))
        }
        return .object([
            "workspaceKey": .string(workspaceKey), "configURL": .string(configURL), "eventsURL": .string(eventsURL),
            "grantsURL": .string(grantsURL), "jwksURL": .string(jwksURL), "configKeys": map(configKeys),
            "grantKeys": map(grantKeys),
        ])
    }
}

extension ResetOutcome {
    var json: JSONValue {
        guard let workspace else { return .object(["reset": .bool(true)]) }
        var body: JSONObject = ["reset": .bool(true), "workspaceKey": .string(workspace)]
        body.set("served", .bool(servedRevision != nil))
        if let servedRevision { body.set("revision", .number(JSONNumber(servedRevision))) }
        body.set("events", .number(JSONNumber(events)))
        body.set("faults", .number(JSONNumber(faults)))
        return .object(body)
    }
}

extension ClockState {
    var json: JSONValue {
        .object([
            "now": .number(JSONNumber(now)), "offsetMs": .number(JSONNumber(offsetMilliseconds)),
            "frozen": .bool(frozen),
        ])
    }
}

extension EventListing {
    var json: JSONValue {
        .object(["events": .array(events), "nextCursor": nextCursor.map { .string(String($0)) } ?? .null])
    }
}

extension EventWaitOutcome {
    var json: JSONValue {
        .object(["complete": .bool(complete), "count": .number(JSONNumber(count)), "events": .array(events)])
    }
}

extension ViolationReport {
    /// The shape of issue 6 unpaged (every violation, by first event), `nextCursor` added when paged, counts per
    /// rule for a summary.
    func json(_ query: ViolationQuery) -> JSONValue {
        let checked = JSONValue.number(JSONNumber(Int64(checkedEvents)))
        if query.summary {
            var object = JSONObject()
            for rule in ViolationRule.allCases {
                object.set(rule.rawValue, .number(JSONNumber(Int64(counts[rule] ?? 0))))
            }
            let total = counts.values.reduce(0, +)
            return .object([
                "workspaceKey": .string(workspaceKey), "counts": .object(object),
                "total": .number(JSONNumber(Int64(total))), "checkedEvents": checked,
            ])
        }
        var body: JSONObject = [
            "workspaceKey": .string(workspaceKey), "violations": .array(violations.map(\.json)),
            "checkedEvents": checked,
        ]
        if query.limit != nil { body.set("nextCursor", nextCursor.map(JSONValue.string) ?? .null) }
        return .object(body)
    }
}

extension HealthReport {
    var json: JSONValue {
        let errors = fileErrors.map { error -> JSONValue in
            .object(["file": .string(error.file), "message": .string(error.message)])
        }
        return .object([
            "status": .string(writable ? "ok" : "unavailable"),
            "version": .string(GronaMockVersion.current),
            "storage": .object([
                "writable": .bool(writable), "lastError": lastStorageError.map(JSONValue.string) ?? .null,
            ]),
            "workspaces": .object(["loaded": .number(JSONNumber(servedWorkspaces)), "errors": .array(errors)]),
            "connections": .object([
                "open": .number(JSONNumber(openConnections)), "max": .number(JSONNumber(maxConnections)),
            ]),
        ])
    }
}
