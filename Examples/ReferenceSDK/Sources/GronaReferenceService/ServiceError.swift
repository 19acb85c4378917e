import GronaReferenceHTTP

/// A request the service answers with an error (service protocol, "Errors"): 400 for a body it cannot parse or a
/// command it does not know, 404 for an unknown client, 409 for a command the SDK refused.
struct ServiceError: Error, Sendable {
    var status: Int
    var message: String

    static func badRequest(_ message: String) -> ServiceError { ServiceError(status: 400, message: message) }
    static func notFound(_ message: String) -> ServiceError { ServiceError(status: 404, message: message) }
    static func refused(_ message: String) -> ServiceError { ServiceError(status: 409, message: message) }

    var response: HTTPResponse { HTTPServer.errorResponse(status, message) }
}
