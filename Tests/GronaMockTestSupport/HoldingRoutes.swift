import Foundation
import GronaMockHTTP
import GronaMockPlatform

/// What the holding toy routes keep, for tests of held requests (`HTTPResponder.hold`): each held request's
/// responder, and how many holds were released.
package final class HoldLedger: Sendable {
    private let responders = Mutex<[HTTPResponder]>([])
    private let releaseCount = Atomic<Int>(0)

    package init() {}

    /// Requests held so far.
    package var held: Int { responders.withLock { $0.count } }

    /// Holds released so far: each must be released once, when its client goes.
    package var released: Int { releaseCount.load(ordering: .relaxed) }

    fileprivate func hold(_ responder: HTTPResponder) {
        responders.withLock { $0.append(responder) }
        responder.hold { [self] in releaseCount.add(1, ordering: .relaxed) }
    }

    /// Answers every request held so far, as a handler whose wait ended would: for a client that went, the
    /// answer must go nowhere (and not crash), and release nothing a second time.
    package func answerAll() {
        for responder in responders.withLock({ $0 }) { responder.send(HTTPResponse.json("{\"late\":true}")) }
    }
}

extension TestRoutes {
    /// The toy routes with two that hold their request and never answer on their own, as a long-poll or a
    /// delay does: `/held` holds it as the handler runs, on the loop; `/held-late` on another thread once
    /// `gate` opens, so that a test can act before the hold exists.
    package static func holding(_ ledger: HoldLedger, gate: Gate = Gate()) -> Router {
        var router = router()
        router.on(.get, "/held") { _, responder in ledger.hold(responder) }
        router.on(.get, "/held-late") { _, responder in
            Thread.detachNewThread {
                gate.pass()
                ledger.hold(responder)
            }
        }
        return router
    }
}
