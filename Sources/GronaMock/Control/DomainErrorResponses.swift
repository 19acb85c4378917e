import GronaHTTP

/// Where the engine's domain errors become HTTP answers: each error type thrown by domain code (validation,
/// workspaces, storage, the clock, queries) is given its status, its stable code and its sentence here and
/// nowhere else, so the domain never names a status, and a handler simply `try`s.

extension InvalidQuery: HTTPErrorConvertible {
    public var httpError: HTTPError { HTTPError(.badRequest, code: .invalidQuery, message: message) }
}

/// A read or write the storage could not do now: the client may simply ask again.
extension StorageError: HTTPErrorConvertible {
    public var httpError: HTTPError {
        HTTPError(
            .serviceUnavailable, code: .storageUnavailable, message: "The event store cannot be used now: \(message).",
            headers: ["Retry-After": "1"])
    }
}

extension ClockOutOfRange: HTTPErrorConvertible {
    public var httpError: HTTPError { HTTPError(.badRequest, code: .invalidClock, message: "refused: \(self).") }
}

extension WorkspaceRegistry.ChangeError: HTTPErrorConvertible {
    public var httpError: HTTPError {
        switch self {
        case .invalid(let problems):
            let errors = problems.filter { $0.severity == .error }.map(\.description)
            return HTTPError(
                .unprocessableContent, code: .invalidWorkspace,
                message: "The workspace has \(errors.count) error(s): \(errors.prefix(20).joined(separator: "; ")). "
                    + "Add ?allowInvalid=true to serve it anyway.")
        case .unknownWorkspace(let key): return .unknownWorkspace(key)
        case .unknownCampaign(let id):
            return HTTPError(
                .notFound, code: .unknownCampaign, message: "No campaign \(Quote.text(id)) in this workspace.")
        case .notAClone(let key):
            return HTTPError(
                .conflict, code: .notAClone,
                message:
                    "\(Quote.text(key)) comes from a file; only clones are deleted. Use POST /_mock/reset to undo changes."
            )
        case .secretKeyInUse(let owner):
            return HTTPError(
                .conflict, code: .secretKeyInUse,
                message:
                    "Workspace \(Quote.text(owner)) already uses this secret key; each served workspace needs its own.")
        case .alreadyExists(let key):
            return HTTPError(
                .conflict, code: .workspaceExists, message: "A workspace \(Quote.text(key)) is already served.")
        case .failed(let reason):
            return HTTPError(.internalServerError, code: .changeFailed, message: reason)
        }
    }
}
