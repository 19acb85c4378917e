#if canImport(Glibc)
import Glibc
import GronaMockCLinux
#elseif canImport(Darwin)
import Darwin
#endif

/// The poll(2) backend of `Poller`: POSIX, so it is the one macOS runs, and Linux CI tests it too.
///
/// The watched descriptors sit in one `pollfd` array handed to the kernel as is; a descriptor-to-slot map
/// makes register, modify and unregister O(1) (unregister moves the last slot into the freed one). Slot 0 is
/// the read end of a non-blocking pipe that `wakeup` writes to, since there is no eventfd outside Linux.
/// Each wait costs time linear in the descriptors watched, which is what poll(2) is.
final class PortablePoller {
    private var descriptors: [pollfd]
    /// The token of each slot of `descriptors`.
    private var tokens: [UInt64]
    /// Keyed by descriptor, as epoll is: two registrations of one open descriptor cannot coexist.
    private var slots: [Int32: Int] = [:]
    /// What the last `wait` found, read back by `event(at:)`; copied out so that unregistering while the
    /// events are handled cannot shift them.
    private var ready: [Poller.Event] = []
    private let wakeupReader: Int32
    private let wakeupWriter: Int32

    init(capacity: Int) throws(SystemError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SystemError.last("pipe") }
        do throws(SystemError) {
            for end in ends {
                try Socket.setNonBlocking(end)
                try Socket.setCloseOnExec(end)
            }
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        wakeupReader = ends[0]
        wakeupWriter = ends[1]
        descriptors = [pollfd(fd: wakeupReader, events: Int16(POLLIN), revents: 0)]
        descriptors.reserveCapacity(capacity)
        tokens = [Poller.wakeupToken]
        tokens.reserveCapacity(capacity)
        ready.reserveCapacity(capacity)
    }

    deinit {
        close(wakeupReader)
        close(wakeupWriter)
    }

    func register(_ fd: Int32, token: UInt64, interest: Poller.Interest) throws(SystemError) {
        guard slots[fd] == nil else { throw SystemError("registering with poll", errno: EEXIST) }
        slots[fd] = descriptors.count
        descriptors.append(pollfd(fd: fd, events: Self.mask(interest), revents: 0))
        tokens.append(token)
    }

    func modify(_ fd: Int32, token: UInt64, interest: Poller.Interest) throws(SystemError) {
        guard let slot = slots[fd] else { throw SystemError("modifying with poll", errno: ENOENT) }
        descriptors[slot].events = Self.mask(interest)
        tokens[slot] = token
    }

    func unregister(_ fd: Int32) {
        guard let slot = slots.removeValue(forKey: fd) else { return }
        let last = descriptors.count - 1
        if slot != last {
            descriptors[slot] = descriptors[last]
            tokens[slot] = tokens[last]
            slots[descriptors[slot].fd] = slot
        }
        descriptors.removeLast()
        tokens.removeLast()
    }

    /// A full pipe already holds a wake-up the loop has not consumed, so a write that would block is dropped.
    func wakeup() {
        var byte: UInt8 = 1
        while write(wakeupWriter, &byte, 1) < 0 && errno == EINTR {}
    }

    func wait(timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        try collect(
            descriptors.withUnsafeMutableBufferPointer { watched in
                poll(watched.baseAddress, nfds_t(watched.count), timeoutMilliseconds)
            })
    }

    /// ppoll(2) on Linux; elsewhere poll(2) with the timeout rounded up to the next millisecond (rounding down
    /// would make a shorter wait a busy loop).
    func wait(timeoutNanoseconds: Int64) throws(SystemError) -> Int {
        #if canImport(Glibc)
        try collect(
            descriptors.withUnsafeMutableBufferPointer { watched in
                grona_poll_nanoseconds(watched.baseAddress, nfds_t(watched.count), timeoutNanoseconds)
            })
        #else
        let milliseconds = timeoutNanoseconds / 1_000_000 + (timeoutNanoseconds % 1_000_000 == 0 ? 0 : 1)
        return try wait(timeoutMilliseconds: Int32(clamping: milliseconds))
        #endif
    }

    /// Reads back what a wait that returned `count` found.
    private func collect(_ count: Int32) throws(SystemError) -> Int {
        ready.removeAll(keepingCapacity: true)
        if count < 0 {
            if errno == EINTR { return 0 }
            throw SystemError.last("poll")
        }
        var remaining = Int(count)
        var slot = 0
        while remaining > 0 && slot < descriptors.count {
            let returned = Int32(descriptors[slot].revents)
            if returned != 0 {
                remaining -= 1
                if slot == 0 {
                    drainWakeups()
                    ready.append(
                        Poller.Event(token: Poller.wakeupToken, readable: true, writable: false, hangup: false))
                } else {
                    ready.append(Self.event(tokens[slot], returned))
                }
            }
            slot += 1
        }
        return ready.count
    }

    func event(at index: Int) -> Poller.Event {
        ready[index]
    }

    /// POLLERR and POLLNVAL are a failed or unusable socket: hang-up, as EPOLLERR is. POLLHUP alone is one
    /// too, as EPOLLHUP is. POLLHUP with POLLIN is left to the read, which sees the end of stream or the
    /// reset: macOS reports a peer's mere half-close that way, and that client still waits for its answers
    /// (RFC 9112 §9.6).
    private static func event(_ token: UInt64, _ returned: Int32) -> Poller.Event {
        let readable = returned & POLLIN != 0
        let failed = returned & (POLLERR | POLLNVAL) != 0 || (returned & POLLHUP != 0 && !readable)
        return Poller.Event(
            token: token, readable: readable, writable: returned & POLLOUT != 0, hangup: failed,
            readHangup: returned & readHangupFlag != 0)
    }

    /// POLLRDHUP where the system has it (Linux); 0 elsewhere, where a half-close comes as POLLHUP.
    #if canImport(Glibc)
    private static let readHangupFlag = Int32(GRONA_POLLRDHUP)
    #else
    private static let readHangupFlag: Int32 = 0
    #endif

    /// Empties the pipe, so that the next wait sleeps until the next wake-up.
    private func drainWakeups() {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { buffer in
            while true {
                let count = read(wakeupReader, buffer.baseAddress, buffer.count)
                if count == buffer.count || (count < 0 && errno == EINTR) { continue }
                return
            }
        }
    }

    private static func mask(_ interest: Poller.Interest) -> Int16 {
        var mask: Int32 = 0
        if interest.contains(.read) { mask |= POLLIN }
        if interest.contains(.write) { mask |= POLLOUT }
        if interest.contains(.readHangup) { mask |= readHangupFlag }
        return Int16(mask)
    }
}
