#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: its name and `errno`, turned into a sentence once, here.
public struct SystemError: Error, Sendable, CustomStringConvertible {
    public let call: String
    public let errno: Int32
    /// The reason when it is not an errno (a resolver's own error).
    private let reason: String?

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
        reason = nil
    }

    package init(call: String, reason: String) {
        self.call = call
        errno = 0
        self.reason = reason
    }

    /// The error of the call that just failed.
    static func last(_ call: String) -> SystemError {
        #if canImport(Glibc)
        SystemError(call, errno: Glibc.errno)
        #else
        SystemError(call, errno: Darwin.errno)
        #endif
    }

    public var description: String {
        if let reason { return "\(call) failed: \(reason)" }
        return "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
