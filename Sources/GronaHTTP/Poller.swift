import GronaJSON

#if canImport(Glibc)
import Glibc
import GronaCLinux
#elseif canImport(Darwin)
import Darwin
#endif

/// Readiness notification for one event loop: epoll on Linux, kqueue on macOS.
///
/// The only platform-specific part of the server; everything above it speaks in tokens and interests.
/// Level-triggered on both, so a loop that leaves bytes unread is told again rather than stalled.
final class Poller {
    struct Interest: OptionSet {
        let rawValue: UInt8
        static let read = Interest(rawValue: 1)
        static let write = Interest(rawValue: 2)
    }

    struct Event {
        var token: UInt64
        var readable: Bool
        var writable: Bool
        /// Both directions are gone (a reset, or a hang-up) or the socket failed: nothing more can be read
        /// or sent, so the owner closes. A peer that only finished sending is `readable` (end of stream).
        var hangup: Bool
    }

    /// Reserved for the cross-thread wake-up.
    static let wakeupToken: UInt64 = 0

    private let descriptor: Int32
    #if canImport(Glibc)
    private let wakeupDescriptor: Int32
    private var events: [epoll_event]
    #else
    private var events: [kevent]
    #endif

    init(capacity: Int = 256) throws(SystemError) {
        #if canImport(Glibc)
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw SystemError.last("epoll_create1") }
        wakeupDescriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeupDescriptor >= 0 else {
            close(descriptor)
            throw SystemError.last("eventfd")
        }
        events = Array(repeating: epoll_event(), count: capacity)
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeupToken
        guard epoll_ctl(descriptor, EPOLL_CTL_ADD, wakeupDescriptor, &event) == 0 else {
            let error = SystemError.last("epoll_ctl")
            close(descriptor)
            close(wakeupDescriptor)
            throw error
        }
        #else
        descriptor = kqueue()
        guard descriptor >= 0 else { throw SystemError.last("kqueue") }
        events = Array(repeating: kevent(), count: capacity)
        var change = kevent(
            ident: UInt(Self.wakeupToken), filter: Int16(EVFILT_USER), flags: UInt16(EV_ADD | EV_CLEAR),
            fflags: 0, data: 0, udata: nil)
        guard kevent(descriptor, &change, 1, nil, 0, nil) == 0 else {
            let error = SystemError.last("kevent")
            close(descriptor)
            throw error
        }
        #endif
    }

    deinit {
        close(descriptor)
        #if canImport(Glibc)
        close(wakeupDescriptor)
        #endif
    }

    /// Starts watching `fd`. `exclusive` wakes only one of the loops sharing a listening socket per
    /// connection (EPOLLEXCLUSIVE), instead of all of them.
    func register(_ fd: Int32, token: UInt64, interest: Interest, exclusive: Bool = false) throws(SystemError) {
        #if canImport(Glibc)
        var event = epoll_event()
        // EPOLLEXCLUSIVE admits only IN, OUT, ERR and HUP: no RDHUP for the shared listener.
        event.events =
            exclusive
            ? Self.epollMask(interest) & ~EPOLLRDHUP.rawValue | EPOLLEXCLUSIVE.rawValue
            : Self.epollMask(interest)
        event.data.u64 = token
        guard epoll_ctl(descriptor, EPOLL_CTL_ADD, fd, &event) == 0 else { throw SystemError.last("epoll_ctl") }
        #else
        try apply(fd, token: token, interest: interest, previous: [])
        #endif
    }

    func modify(_ fd: Int32, token: UInt64, interest: Interest, previous: Interest) throws(SystemError) {
        #if canImport(Glibc)
        var event = epoll_event()
        event.events = Self.epollMask(interest)
        event.data.u64 = token
        guard epoll_ctl(descriptor, EPOLL_CTL_MOD, fd, &event) == 0 else { throw SystemError.last("epoll_ctl") }
        #else
        try apply(fd, token: token, interest: interest, previous: previous)
        #endif
    }

    /// Stops watching `fd`; closing a descriptor also removes it, so failures here are not interesting.
    func unregister(_ fd: Int32, previous: Interest) {
        #if canImport(Glibc)
        var event = epoll_event()
        _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, fd, &event)
        #else
        try? apply(fd, token: 0, interest: [], previous: previous)
        #endif
    }

    /// Wakes the loop from `wait`; safe from any thread.
    func wakeup() {
        #if canImport(Glibc)
        var one: UInt64 = 1
        _ = write(wakeupDescriptor, &one, 8)
        #else
        var change = kevent(
            ident: UInt(Self.wakeupToken), filter: Int16(EVFILT_USER), flags: 0, fflags: UInt32(NOTE_TRIGGER),
            data: 0, udata: nil)
        _ = kevent(descriptor, &change, 1, nil, 0, nil)
        #endif
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever) and returns how many descriptors are ready; read
    /// them with `event(at:)` before the next wait. Wake-ups are consumed here and reported with
    /// `wakeupToken`.
    func wait(timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        #if canImport(Glibc)
        let count = epoll_wait(descriptor, &events, Int32(events.count), timeoutMilliseconds)
        if count < 0 {
            if errno == EINTR { return 0 }
            throw SystemError.last("epoll_wait")
        }
        return Int(count)
        #else
        var timeout = timespec(
            tv_sec: Int(timeoutMilliseconds / 1000), tv_nsec: Int(timeoutMilliseconds % 1000) * 1_000_000)
        let count = kevent(
            descriptor, nil, 0, &events, Int32(events.count), timeoutMilliseconds < 0 ? nil : &timeout)
        if count < 0 {
            if errno == EINTR { return 0 }
            throw SystemError.last("kevent")
        }
        return Int(count)
        #endif
    }

    /// The `index`th ready descriptor of the last `wait`.
    func event(at index: Int) -> Event {
        #if canImport(Glibc)
        let event = events[index]
        let token = event.data.u64
        if token == Self.wakeupToken {
            var value: UInt64 = 0
            _ = read(wakeupDescriptor, &value, 8)
        }
        let flags = event.events
        return Event(
            token: token,
            readable: flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
            writable: flags & EPOLLOUT.rawValue != 0,
            hangup: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0)
        #else
        let event = events[index]
        if event.filter == Int16(EVFILT_USER) {
            return Event(token: Self.wakeupToken, readable: true, writable: false, hangup: false)
        }
        // EV_EOF on the read filter is the peer finishing its side: readable, and the read sees the end.
        let failed =
            event.flags & UInt16(EV_ERROR) != 0
            || (event.filter == Int16(EVFILT_WRITE) && event.flags & UInt16(EV_EOF) != 0)
        return Event(
            token: UInt64(UInt(bitPattern: event.udata)), readable: event.filter == Int16(EVFILT_READ),
            writable: event.filter == Int16(EVFILT_WRITE), hangup: failed)
        #endif
    }

    #if canImport(Glibc)
    /// RDHUP only with read interest: level-triggered, it would otherwise be reported again and again while
    /// a connection whose client finished sending waits for a handler.
    private static func epollMask(_ interest: Interest) -> UInt32 {
        var mask: UInt32 = 0
        if interest.contains(.read) { mask |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if interest.contains(.write) { mask |= EPOLLOUT.rawValue }
        return mask
    }
    #else
    private func apply(_ fd: Int32, token: UInt64, interest: Interest, previous: Interest) throws(SystemError) {
        var changes: [kevent] = []
        let udata = UnsafeMutableRawPointer(bitPattern: UInt(token))
        for (flag, filter) in [(Interest.read, EVFILT_READ), (Interest.write, EVFILT_WRITE)] {
            let wanted = interest.contains(flag)
            guard wanted != previous.contains(flag) else { continue }
            changes.append(
                kevent(
                    ident: UInt(fd), filter: Int16(filter), flags: UInt16(wanted ? EV_ADD : EV_DELETE), fflags: 0,
                    data: 0, udata: udata))
        }
        guard !changes.isEmpty else { return }
        guard kevent(descriptor, changes, Int32(changes.count), nil, 0, nil) == 0 else {
            throw SystemError.last("kevent")
        }
    }
    #endif
}
