import GronaMockHTTP

/// `--admin-token`: when set, every `/_mock` route but health needs it as `Authorization: Bearer <token>`,
/// so a mock reachable beyond loopback cannot be reset or rewired by whoever finds it.
///
/// The protection belongs to the `/_mock` route group, not to the routes registered so far: a route added
/// later, anywhere, is covered as well.
package enum AdminToken {
    /// Why a token cannot be used, or nil. An empty token would silently mean "no protection", and a token
    /// with white space or control characters could never match the trimmed header.
    package static func problem(with token: String) -> String? {
        if token.isEmpty { return "the admin token is empty (leave the option out to run without one)" }
        if token.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "the admin token must not contain spaces or control characters"
        }
        if token.utf8.count > 4096 { return "the admin token is longer than 4096 bytes" }
        return nil
    }

    static func protect(_ router: inout Router, token: String) {
        // On the head first, so that a client without the token cannot make the server read its body (a
        // workspace PUT may be 8 MiB); then on the request, for every route of the group.
        router.check(ControlRoutes.group) { head in authorized(head.headers, token) ? nil : refusal }
        router.use(ControlRoutes.group) { request, responder, next in
            guard authorized(request.headers, token) else { return responder.send(refusal.response) }
            next(request, responder)
        }
    }

    private static func authorized(_ headers: HTTPHeaders, _ token: String) -> Bool {
        guard let value = headers["Authorization"], value.lowercasedASCII().hasPrefix("bearer ") else { return false }
        return ConstantTime.equals(value.dropFirst("bearer ".count).trimmingASCIIWhitespace(), token)
    }

    private static let refusal = HTTPError(
        .unauthorized, code: .adminTokenRequired,
        message: "This server needs its admin token: Authorization: Bearer <token>.",
        headers: ["WWW-Authenticate": "Bearer realm=\"grona-mock admin\""])
}
