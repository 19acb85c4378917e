import GronaMockHTTP
import GronaMockPlatform
import Testing

/// `HTTPResponder.hold` without a socket: what is released, when, and how often.
@Suite("Holding a responder")
struct HTTPResponderHoldTests {
    /// Counts releases and answers delivered.
    final class Tally: Sendable {
        private let counts = Mutex((released: 0, delivered: 0))
        var released: Int { counts.withLock { $0.released } }
        var delivered: Int { counts.withLock { $0.delivered } }
        func release() { counts.withLock { $0.released += 1 } }
        func deliver() { counts.withLock { $0.delivered += 1 } }
    }

    static func responder(_ tally: Tally, detached: Bool = true) -> HTTPResponder {
        let responder = HTTPResponder { _ in tally.deliver() }
        if detached { _ = responder.finishDispatch() }
        return responder
    }

    @Test("abandoning a held request releases each of its holds once; a late answer goes nowhere")
    func abandonReleasesOnce() {
        let tally = Tally()
        let responder = Self.responder(tally)
        responder.hold { tally.release() }
        responder.hold { tally.release() }
        #expect(responder.isHeld)
        #expect(responder.abandon())
        #expect(!responder.abandon())
        #expect(tally.released == 2)
        responder.send(HTTPResponse.json("{}"))
        #expect(tally.delivered == 0)
        #expect(tally.released == 2)
    }

    @Test("a hold declared after its client went is released at once")
    func holdAfterAbandon() {
        let tally = Tally()
        let responder = Self.responder(tally)
        #expect(responder.abandon())
        responder.hold { tally.release() }
        #expect(tally.released == 1)
        #expect(!responder.isHeld)
    }

    @Test("an answered request is not abandoned and releases nothing, whether held before or after the answer")
    func answeredReleasesNothing() {
        for dispatching in [true, false] {
            let tally = Tally()
            let responder = Self.responder(tally, detached: !dispatching)
            responder.hold { tally.release() }
            responder.send(HTTPResponse.json("{}"))
            responder.hold { tally.release() }
            #expect(!responder.isHeld)
            #expect(!responder.abandon())
            #expect(tally.released == 0)
            if dispatching { #expect(responder.finishDispatch() != nil) }
        }
    }

    @Test("a hold declared on a relay is its upstream's: abandoning the upstream releases it")
    func relayPassesHoldsOn() {
        let tally = Tally()
        let upstream = Self.responder(tally)
        let relay = HTTPResponder(relayingTo: upstream) { upstream.send($0) }
        _ = relay.finishDispatch()
        relay.hold { tally.release() }
        #expect(upstream.isHeld)
        #expect(upstream.abandon())
        #expect(tally.released == 1)
    }
}
