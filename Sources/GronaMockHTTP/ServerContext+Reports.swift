import GronaMockPlatform

extension ServerContext {
    /// The status reported for a request abandoned by its client: nginx's 499 ("client closed request"). It
    /// is never sent; metrics and logs use it, as nginx's access log does.
    static let abandonedStatus = 499

    /// Metrics and the access log for an answer as it is queued.
    func answered(_ request: RequestInFlight, _ response: HTTPResponse, sendsBody: Bool, peer: String) {
        if let observer {
            let seconds = Double(MonotonicClock.now() &- request.started) / 1e9
            observer(
                HTTPServer.Answered(
                    route: request.route, method: request.method, status: response.status.code, seconds: seconds))
        }
        if configuration.accessLog {
            let micros = (MonotonicClock.now() &- request.started) / 1000
            logger.info(
                "request",
                [
                    ("method", request.method.description), ("path", String(request.path.prefix(512))),
                    ("status", response.status.code), ("bytes", sendsBody ? response.body.count : 0),
                    ("duration_ms", Logger.Value.fixed(Int64(clamping: micros), decimals: 3)),
                    ("peer", peer),
                ])
        }
    }

    /// A request whose connection closed before its answer (the client went, or a timeout or shutdown ended
    /// it): counted with status 499 and logged whether or not the access log is on, since it is what a
    /// person looks for when a client says it got no answer. The path is logged without its query, which may
    /// hold a token; the route pattern says which endpoint it was.
    func abandoned(_ request: RequestInFlight, peer: String) {
        if let observer {
            let seconds = Double(MonotonicClock.now() &- request.started) / 1e9
            observer(
                HTTPServer.Answered(
                    route: request.route, method: request.method, status: Self.abandonedStatus, seconds: seconds))
        }
        logger.info(
            "request abandoned: the connection closed before its answer",
            [
                ("method", request.method.description), ("path", String(request.path.prefix(512))),
                ("route", request.route), ("peer", peer),
            ])
    }
}
