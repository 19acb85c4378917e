import GronaHTTP
import GronaJSON

/// `--admin-token`: when set, every `/_mock` route but health needs it as `Authorization: Bearer <token>`,
/// so a mock reachable beyond loopback cannot be reset or rewired by whoever finds it.
///
/// The protection belongs to the `/_mock` route group, not to the routes registered so far: a route added
/// later, anywhere, is covered as well.
public enum AdminToken {
    /// Why a token cannot be used, or nil. An empty token would silently mean "no protection", and a token
    /// with white space or control characters could never match the trimmed header.
    public static func problem(with token: String) -> String? {
        if token.isEmpty { return "the admin token is empty (leave the option out to run without one)" }
        if token.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "the admin token must not contain spaces or control characters"
        }
        if token.utf8.count > 4096 { return "the admin token is longer than 4096 bytes" }
        return nil
    }

    static func protect(_ router: inout Router, token: String) {
        router.use(ControlRoutes.group) { request, responder, next in
            guard let value = request.headers["Authorization"],
                value.lowercasedASCII().hasPrefix("bearer "),
                ConstantTime.equals(value.dropFirst("bearer ".count).trimmingASCIIWhitespace(), token)
            else {
                responder.send(
                    HTTPError(
                        .unauthorized, code: .adminTokenRequired,
                        message: "This server needs its admin token: Authorization: Bearer <token>.",
                        headers: ["WWW-Authenticate": "Bearer realm=\"grona-mock admin\""]
                    ).response)
                return
            }
            next(request, responder)
        }
    }
}
