import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// The `delay` fault's pending answer (`DelayedAnswer`), without a socket.
@Suite("Delayed answers")
struct DelayedAnswerTests {
    /// What became of the answer.
    final class Outcome: Sendable {
        let delivered = Atomic<Int>(0)
    }

    @Test("a delayed answer is sent after its delay")
    func sentAfterDelay() {
        let outcome = Outcome()
        let responder = HTTPResponder { _ in outcome.delivered.add(1, ordering: .relaxed) }
        _ = responder.finishDispatch()
        DelayedAnswer.send(HTTPResponse.json("{}"), through: responder, afterMilliseconds: 20)
        #expect(responder.isHeld || outcome.delivered.load(ordering: .relaxed) == 1)
        #expect(eventually { outcome.delivered.load(ordering: .relaxed) == 1 })
        #expect(!responder.isHeld)
    }

    @Test("a delayed answer whose client went lets go of the answer and the responder at once, not after its delay")
    func releasedAtOnce() {
        let outcome = Outcome()
        weak var released: HTTPResponder?
        do {
            let responder = HTTPResponder { _ in outcome.delivered.add(1, ordering: .relaxed) }
            _ = responder.finishDispatch()
            DelayedAnswer.send(HTTPResponse.json("{}"), through: responder, afterMilliseconds: 600_000)
            #expect(responder.isHeld)
            released = responder
            // The client goes: its connection abandons the responder, which cancels the timer.
            #expect(responder.abandon())
        }
        // Only the cancelled timer's handler could still hold the responder.
        #expect(eventually { released == nil }, "the responder is kept until the delay ends")
        #expect(outcome.delivered.load(ordering: .relaxed) == 0)
    }
}
