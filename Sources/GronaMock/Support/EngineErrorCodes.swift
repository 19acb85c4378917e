import GronaHTTP

/// The engine's error codes, each declared once (the HTTP core declares its own in `ErrorCode`).
/// docs/errors.md and docs/openapi.yaml list every one; a test walks `engineCodes` to keep them so.
extension ErrorCode {
    public static let adminTokenRequired = ErrorCode("admin_token_required")
    public static let changeFailed = ErrorCode("change_failed")
    public static let injectedFault = ErrorCode("injected_fault")
    public static let invalidClock = ErrorCode("invalid_clock")
    public static let invalidCustomerId = ErrorCode("invalid_customer_id")
    public static let invalidEnvelope = ErrorCode("invalid_envelope")
    public static let invalidFault = ErrorCode("invalid_fault")
    public static let invalidQuery = ErrorCode("invalid_query")
    public static let invalidRequest = ErrorCode("invalid_request")
    public static let invalidWorkspace = ErrorCode("invalid_workspace")
    public static let malformedJson = ErrorCode("malformed_json")
    public static let notAClone = ErrorCode("not_a_clone")
    public static let secretInQuery = ErrorCode("secret_in_query")
    public static let secretKeyInUse = ErrorCode("secret_key_in_use")
    public static let signingFailed = ErrorCode("signing_failed")
    public static let storageUnavailable = ErrorCode("storage_unavailable")
    public static let unauthorized = ErrorCode("unauthorized")
    public static let unknownCampaign = ErrorCode("unknown_campaign")
    public static let unknownFault = ErrorCode("unknown_fault")
    public static let unknownWorkspace = ErrorCode("unknown_workspace")
    public static let unsupportedMediaType = ErrorCode("unsupported_media_type")
    public static let workspaceExists = ErrorCode("workspace_exists")

    /// Every code the engine can answer with.
    public static let engineCodes: [ErrorCode] = [
        .adminTokenRequired, .changeFailed, .injectedFault, .invalidClock, .invalidCustomerId, .invalidEnvelope,
        .invalidFault, .invalidQuery, .invalidRequest, .invalidWorkspace, .malformedJson, .notAClone, .secretInQuery,
        .secretKeyInUse, .signingFailed, .storageUnavailable, .unauthorized, .unknownCampaign, .unknownFault,
        .unknownWorkspace, .unsupportedMediaType, .workspaceExists,
    ]

    /// Every code grona-mock can answer with.
    public static var allCodes: [ErrorCode] { serverCodes + engineCodes }
}
