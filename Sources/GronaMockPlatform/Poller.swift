#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which readiness mechanism the event loops use.
///
/// epoll is Linux's own and its default: one system call per wait whatever the number of connections. poll(2)
/// is POSIX, the only backend elsewhere (macOS), and selectable on Linux so that CI serves the live tests
/// through the same code that macOS runs.
package enum PollerBackend: Sendable, CaseIterable, CustomStringConvertible {
    #if canImport(Glibc)
    case epoll
    #endif
    case poll

    /// epoll where there is one, poll(2) elsewhere.
    package static var platformDefault: PollerBackend {
        #if canImport(Glibc)
        .epoll
        #else
        .poll
        #endif
    }

    package var description: String {
        switch self {
        #if canImport(Glibc)
        case .epoll: "epoll"
        #endif
        case .poll: "poll"
        }
    }
}

/// Readiness notification for one event loop, on the backend the server's configuration names.
///
/// The only platform-specific part of the server; everything above it speaks in tokens and interests.
/// Level-triggered on every backend, so a loop that leaves bytes unread is told again rather than stalled.
/// Each call is one switch on an immutable tag in front of the backend's system call.
package final class Poller {
    package struct Interest: OptionSet, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        package static let read = Interest(rawValue: 1)
        package static let write = Interest(rawValue: 2)
        /// The peer finished sending, told without read interest, so that bytes left unread on purpose (a
        /// full pipeline) neither wake the loop nor hide the end behind them (EPOLLRDHUP, POLLRDHUP). Linux
        /// only: poll(2) elsewhere has no such event (macOS reports a half-close as POLLHUP, a hang-up).
        package static let readHangup = Interest(rawValue: 4)

        // The set operations the loops use on every readiness change, written out concretely. Called from
        // another module, `OptionSet`'s own would go through the conformance to the unspecialised generic
        // implementations (array literals through `SetAlgebra.init(_: Sequence)`): measured at 3% of the
        // server's time per request on the configuration endpoint (bench/http.sh).
        package init() { rawValue = 0 }
        package init(arrayLiteral elements: Interest...) {
            var raw: UInt8 = 0
            for element in elements { raw |= element.rawValue }
            rawValue = raw
        }
        package func contains(_ member: Interest) -> Bool { rawValue & member.rawValue == member.rawValue }
        package func union(_ other: Interest) -> Interest { Interest(rawValue: rawValue | other.rawValue) }
        package func subtracting(_ other: Interest) -> Interest { Interest(rawValue: rawValue & ~other.rawValue) }
        package mutating func formUnion(_ other: Interest) { self = union(other) }
        @discardableResult
        package mutating func insert(_ member: Interest) -> (inserted: Bool, memberAfterInsert: Interest) {
            let inserted = !contains(member)
            formUnion(member)
            return (inserted, member)
        }
    }

    package struct Event {
        package var token: UInt64
        package var readable: Bool
        package var writable: Bool
        /// Both directions are gone (a reset, or a hang-up) or the socket failed: nothing more can be read
        /// or sent, so the owner closes. A peer that only finished sending is `readable` (end of stream).
        package var hangup: Bool
        /// The peer finished sending (`Interest.readHangup`); with read interest, the same end is `readable`.
        package var readHangup: Bool = false
    }

    /// Reserved for the cross-thread wake-up.
    package static let wakeupToken: UInt64 = 0

    private enum Backend {
        #if canImport(Glibc)
        case epoll(EpollPoller)
        #endif
        case poll(PortablePoller)
    }

    private let backend: Backend

    package init(_ backend: PollerBackend, capacity: Int = 256) throws(SystemError) {
        switch backend {
        #if canImport(Glibc)
        case .epoll: self.backend = .epoll(try EpollPoller(capacity: capacity))
        #endif
        case .poll: self.backend = .poll(try PortablePoller(capacity: capacity))
        }
    }

    /// Starts watching `fd`. `exclusive` wakes only one of the loops sharing a listening socket per
    /// connection, where the backend can (EPOLLEXCLUSIVE); with poll(2) every loop wakes and all but one find
    /// nothing to accept.
    package func register(_ fd: Int32, token: UInt64, interest: Interest, exclusive: Bool = false) throws(SystemError) {
        switch backend {
        #if canImport(Glibc)
        case .epoll(let epoll): try epoll.register(fd, token: token, interest: interest, exclusive: exclusive)
        #endif
        case .poll(let poll): try poll.register(fd, token: token, interest: interest)
        }
    }

    package func modify(_ fd: Int32, token: UInt64, interest: Interest) throws(SystemError) {
        switch backend {
        #if canImport(Glibc)
        case .epoll(let epoll): try epoll.modify(fd, token: token, interest: interest)
        #endif
        case .poll(let poll): try poll.modify(fd, token: token, interest: interest)
        }
    }

    /// Stops watching `fd`. Call it before closing `fd`: poll(2) would otherwise keep watching the number,
    /// and a later descriptor that reuses it could not be registered.
    package func unregister(_ fd: Int32) {
        switch backend {
        #if canImport(Glibc)
        case .epoll(let epoll): epoll.unregister(fd)
        #endif
        case .poll(let poll): poll.unregister(fd)
        }
    }

    /// Wakes the loop from `wait`; safe from any thread.
    package func wakeup() {
        switch backend {
        #if canImport(Glibc)
        case .epoll(let epoll): epoll.wakeup()
        #endif
        case .poll(let poll): poll.wakeup()
        }
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever) and returns how many descriptors are ready; read
    /// them with `event(at:)` before the next wait. Wake-ups are consumed and reported with `wakeupToken`.
    /// A signal that interrupts the wait (EINTR) returns 0.
    package func wait(timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        switch backend {
        #if canImport(Glibc)
        case .epoll(let epoll): try epoll.wait(timeoutMilliseconds: timeoutMilliseconds)
        #endif
        case .poll(let poll): try poll.wait(timeoutMilliseconds: timeoutMilliseconds)
        }
    }

    /// Waits up to `timeoutNanoseconds` (clamped to 0 ... 1 hour), as precisely as the system allows (epoll_pwait2,
    /// ppoll), else rounded up to whole milliseconds: never rounded down, which would turn a wait of less than a
    /// millisecond into a busy loop. For a loop that keeps a schedule finer than a millisecond (`grona-mock load`).
    package func wait(timeoutNanoseconds: UInt64) throws(SystemError) -> Int {
        let nanoseconds = Int64(min(timeoutNanoseconds, 3_600_000_000_000))
        switch backend {
        #if canImport(Glibc)
        case .epoll(let epoll): return try epoll.wait(timeoutNanoseconds: nanoseconds)
        #endif
        case .poll(let poll): return try poll.wait(timeoutNanoseconds: nanoseconds)
        }
    }

    /// The `index`th ready descriptor of the last `wait`.
    package func event(at index: Int) -> Event {
        switch backend {
        #if canImport(Glibc)
        case .epoll(let epoll): epoll.event(at: index)
        #endif
        case .poll(let poll): poll.event(at: index)
        }
    }
}
