/// `--admin-token`: when set, every `/_mock` route but health needs it as `Authorization: Bearer <token>`,
/// so a mock reachable beyond loopback cannot be reset or rewired by whoever finds it.
enum AdminToken {
    static func protect(_ router: inout Router, token: String) {
        let isControl: (HTTPMethod, String) -> Bool = { _, pattern in
            pattern.hasPrefix("/_mock/") && pattern != "/_mock/health"
        }
        router.wrapHandlers(where: isControl) { handler in
            { request, responder in
                guard let value = request.headers["Authorization"],
                    value.lowercasedASCII().hasPrefix("bearer "),
                    ConstantTime.equals(value.dropFirst("bearer ".count).trimmingASCIIWhitespace(), token)
                else {
                    responder.send(
                        HTTPError(
                            .unauthorized, code: "admin_token_required",
                            message: "This server needs its admin token: Authorization: Bearer <token>.",
                            headers: ["WWW-Authenticate": "Bearer realm=\"grona-mock admin\""]
                        ).response)
                    return
                }
                handler(request, responder)
            }
        }
    }
}
