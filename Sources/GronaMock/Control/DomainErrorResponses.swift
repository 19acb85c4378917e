import GronaMockHTTP

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

extension EventValidator.EnvelopeError: HTTPErrorConvertible {
    var httpError: HTTPError {
        switch self {
        case .invalid(let message):
            HTTPError(.badRequest, code: .invalidEnvelope, message: "Invalid batch envelope: \(message).")
        case .tooManyEvents(let count, let limit):
            HTTPError(
                .contentTooLarge, code: .payloadTooLarge,
                message: "A batch holds at most \(limit) events; this one has \(count).")
        }
    }
}

/// A key, id or secret that breaks its grammar, in a path, a query or a body: the same answer on every route.
extension InvalidIdentifier: HTTPErrorConvertible {
    package var httpError: HTTPError {
        HTTPError(.badRequest, code: .invalidIdentifier, message: "\(description).")
    }
}

extension InvalidFaultRule: HTTPErrorConvertible {
    package var httpError: HTTPError {
        HTTPError(.badRequest, code: .invalidFault, message: problems.joined(separator: "; ") + ".")
    }
}

/// The fault's own failure, not the client's: the rule was valid, building its tampered answer was not.
extension FaultTamperingFailed: HTTPErrorConvertible {
    var httpError: HTTPError {
        HTTPError(.internalServerError, code: .signingFailed, message: "The injected fault failed: \(reason).")
    }
}

extension ClockOutOfRange: HTTPErrorConvertible {
    public var httpError: HTTPError { HTTPError(.badRequest, code: .invalidClock, message: "refused: \(self).") }
}

extension WorkspaceRegistry.ChangeError: HTTPErrorConvertible {
    public var httpError: HTTPError {
        switch self {
        case .invalid(let problems, let allowInvalidWouldServe):
            let errors = problems.filter { $0.severity == .error }.map(\.description)
            return HTTPError(
                .unprocessableContent, code: .invalidWorkspace,
                message: "The workspace has \(errors.count) error(s): \(errors.prefix(20).joined(separator: "; ")). "
                    + (allowInvalidWouldServe
                        ? "Add ?allowInvalid=true to serve it anyway."
                        : "Fix them: identifiers are checked even with ?allowInvalid=true."))
        case .invalidIdentifier(let error):
            return error.httpError
        case .tooManyClones(let limit):
            return HTTPError(
                .conflict, code: .tooManyClones,
                message:
                    "\(limit) clones are served already, the most this server allows (--max-clones). Delete the "
                    + "clones a run no longer needs (DELETE /_mock/workspaces/{key}), give them a ttlSeconds, or "
                    + "start the server with a larger --max-clones.")
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
        case .unavailable(let error):
            return error.httpError
        }
    }
}

extension UnknownFault: HTTPErrorConvertible {
    package var httpError: HTTPError {
        HTTPError(
            .notFound, code: .unknownFault,
            message: "No fault rule \(Quote.text(id)); GET /_mock/faults lists the rules there are.")
    }
}

extension TooManyViewers: HTTPErrorConvertible {
    package var httpError: HTTPError {
        HTTPError(
            .serviceUnavailable, code: .tooManyViewers,
            message: "\(limit) viewers are watching already; close one and retry.", headers: ["Retry-After": "5"])
    }
}
