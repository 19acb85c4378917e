import Dispatch
import GronaMockHTTP

/// The answer a `delay` fault holds back, sent from a timer `delayMs` later (docs/faults.md).
///
/// The request is held (`HTTPResponder.hold`) for as long as the timer runs, with the timer's cancellation as
/// its release: a client that goes meanwhile gets its connection closed at once, not after the delay (up to
/// 600 s, and still held after the rule is deleted), and the cancelled timer lets go of the answer and the
/// responder at once, where a cancelled `asyncAfter` block would keep them until its deadline.
package enum DelayedAnswer {
    package static func send(_ response: HTTPResponse, through responder: HTTPResponder, afterMilliseconds delay: Int) {
        let timer = Timer()
        timer.source.schedule(deadline: .now() + .milliseconds(delay))
        timer.source.setEventHandler {
            responder.send(response)
            // A one-shot source keeps its handler, and this handler the source, until it is cancelled.
            timer.cancel()
        }
        // Active before anything can cancel it: libdispatch refuses to free a source never activated.
        timer.source.activate()
        responder.hold { timer.cancel() }
    }

    /// One timer source, cancelled from whichever thread ends the delay first (the timer, or the loop of a
    /// client that went). `@unchecked`: a dispatch source is safe to schedule, cancel and activate from any
    /// thread, which its Swift overlay does not declare.
    private final class Timer: @unchecked Sendable {
        let source = DispatchSource.makeTimerSource(queue: .global())

        /// Cancelling frees the event handler, and with it the answer and the responder; twice is harmless.
        func cancel() { source.cancel() }
    }
}
