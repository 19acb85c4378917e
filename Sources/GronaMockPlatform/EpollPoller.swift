#if canImport(Glibc)
import Glibc
import GronaMockCLinux

/// The epoll(7) backend of `Poller`: Linux's default. Wake-ups go through an eventfd.
final class EpollPoller {
    private let descriptor: Int32
    private let wakeupDescriptor: Int32
    /// Filled by `epoll_wait`. Memory the poller owns rather than an array, so that a wait needs neither an
    /// exclusivity check nor a retain to pass it to the kernel.
    private let events: UnsafeMutableBufferPointer<epoll_event>

    init(capacity: Int) throws(SystemError) {
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw SystemError.last("epoll_create1") }
        wakeupDescriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeupDescriptor >= 0 else {
            close(descriptor)
            throw SystemError.last("eventfd")
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Poller.wakeupToken
        guard epoll_ctl(descriptor, EPOLL_CTL_ADD, wakeupDescriptor, &event) == 0 else {
            let error = SystemError.last("epoll_ctl")
            close(descriptor)
            close(wakeupDescriptor)
            throw error
        }
        events = .allocate(capacity: max(1, capacity))
        events.initialize(repeating: epoll_event())
    }

    deinit {
        events.deallocate()
        close(descriptor)
        close(wakeupDescriptor)
    }

    func register(_ fd: Int32, token: UInt64, interest: Poller.Interest, exclusive: Bool) throws(SystemError) {
        var event = epoll_event()
        // EPOLLEXCLUSIVE admits only IN, OUT, ERR and HUP: no RDHUP for the shared listener.
        event.events =
            exclusive
            ? Self.mask(interest) & ~EPOLLRDHUP.rawValue | EPOLLEXCLUSIVE.rawValue
            : Self.mask(interest)
        event.data.u64 = token
        guard epoll_ctl(descriptor, EPOLL_CTL_ADD, fd, &event) == 0 else { throw SystemError.last("epoll_ctl") }
    }

    func modify(_ fd: Int32, token: UInt64, interest: Poller.Interest) throws(SystemError) {
        var event = epoll_event()
        event.events = Self.mask(interest)
        event.data.u64 = token
        guard epoll_ctl(descriptor, EPOLL_CTL_MOD, fd, &event) == 0 else { throw SystemError.last("epoll_ctl") }
    }

    /// Closing a descriptor also removes it, so failures here are not interesting.
    func unregister(_ fd: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, fd, &event)
    }

    func wakeup() {
        var one: UInt64 = 1
        _ = write(wakeupDescriptor, &one, 8)
    }

    func wait(timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        try checked(epoll_wait(descriptor, events.baseAddress, Int32(events.count), timeoutMilliseconds))
    }

    func wait(timeoutNanoseconds: Int64) throws(SystemError) -> Int {
        try checked(
            grona_epoll_wait_nanoseconds(descriptor, events.baseAddress, Int32(events.count), timeoutNanoseconds))
    }

    private func checked(_ count: Int32) throws(SystemError) -> Int {
        if count < 0 {
            if errno == EINTR { return 0 }
            throw SystemError.last("epoll_wait")
        }
        return Int(count)
    }

    func event(at index: Int) -> Poller.Event {
        let event = events[index]
        let token = event.data.u64
        if token == Poller.wakeupToken {
            var value: UInt64 = 0
            _ = read(wakeupDescriptor, &value, 8)
        }
        let flags = event.events
        return Poller.Event(
            token: token,
            readable: flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
            writable: flags & EPOLLOUT.rawValue != 0,
            hangup: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0,
            readHangup: flags & EPOLLRDHUP.rawValue != 0)
    }

    /// RDHUP only with read or read-hangup interest: level-triggered, it would otherwise be reported again and
    /// again while a connection whose client finished sending waits for a handler.
    private static func mask(_ interest: Poller.Interest) -> UInt32 {
        var mask: UInt32 = 0
        if interest.contains(.read) { mask |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if interest.contains(.readHangup) { mask |= EPOLLRDHUP.rawValue }
        if interest.contains(.write) { mask |= EPOLLOUT.rawValue }
        return mask
    }
}
#endif
