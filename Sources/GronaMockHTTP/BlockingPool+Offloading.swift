import GronaMockPlatform

extension BlockingPool {
    /// Middleware that moves a group's handlers onto the pool: the loop only hands the request over.
    public func offloading() -> HTTPMiddleware {
        { [self] request, responder, next in execute { next(request, responder) } }
    }
}
