import GronaMockHTTP

/// The engine's error codes, each declared once (the HTTP core declares its own in `ErrorCode`).
/// docs/errors.md and docs/openapi.yaml list every one; a test walks `engineCodes` to keep them so.
extension ErrorCode {
    package static let adminTokenRequired = ErrorCode("admin_token_required")
    package static let changeFailed = ErrorCode("change_failed")
    package static let injectedFault = ErrorCode("injected_fault")
    package static let invalidClock = ErrorCode("invalid_clock")
    package static let invalidCustomerId = ErrorCode("invalid_customer_id")
    package static let invalidEnvelope = ErrorCode("invalid_envelope")
    package static let invalidFault = ErrorCode("invalid_fault")
    package static let invalidIdentifier = ErrorCode("invalid_identifier")
    package static let invalidQuery = ErrorCode("invalid_query")
    package static let invalidRequest = ErrorCode("invalid_request")
    package static let invalidWorkspace = ErrorCode("invalid_workspace")
    package static let malformedJson = ErrorCode("malformed_json")
    package static let notAClone = ErrorCode("not_a_clone")
    package static let secretInQuery = ErrorCode("secret_in_query")
    package static let secretKeyInUse = ErrorCode("secret_key_in_use")
    package static let signingFailed = ErrorCode("signing_failed")
    package static let storageUnavailable = ErrorCode("storage_unavailable")
    package static let tooManyClones = ErrorCode("too_many_clones")
    package static let tooManyViewers = ErrorCode("too_many_viewers")
    package static let unauthorized = ErrorCode("unauthorized")
    package static let unknownCampaign = ErrorCode("unknown_campaign")
    package static let unknownFault = ErrorCode("unknown_fault")
    package static let unknownWorkspace = ErrorCode("unknown_workspace")
    package static let unsupportedMediaType = ErrorCode("unsupported_media_type")
    package static let workspaceExists = ErrorCode("workspace_exists")

    /// Every code the engine can answer with.
    package static let engineCodes: [ErrorCode] = [
        .adminTokenRequired, .changeFailed, .injectedFault, .invalidClock, .invalidCustomerId, .invalidEnvelope,
        .invalidFault, .invalidIdentifier, .invalidQuery, .invalidRequest, .invalidWorkspace, .malformedJson,
        .notAClone, .secretInQuery, .secretKeyInUse, .signingFailed, .storageUnavailable, .tooManyClones,
        .tooManyViewers, .unauthorized, .unknownCampaign,
        .unknownFault, .unknownWorkspace, .unsupportedMediaType, .workspaceExists,
    ]

    /// Every code grona-mock can answer with.
    package static var allCodes: [ErrorCode] { serverCodes + engineCodes }
}
