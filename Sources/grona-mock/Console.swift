#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered output: a script waiting for the "listening on" line must see it the moment the socket is
/// bound, which a buffered stdout behind a pipe would delay.
enum Console {
    static func out(_ text: String) { write(1, text + "\n") }
    /// `newline: false` for a progress line that rewrites itself in place.
    static func error(_ text: String, newline: Bool = true) { write(2, newline ? text + "\n" : text) }

    private static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                #if canImport(Glibc)
                let written = Glibc.write(fd, base + offset, bytes.count - offset)
                #else
                let written = Darwin.write(fd, base + offset, bytes.count - offset)
                #endif
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// The exit statuses of the command line (sysexits.h for usage).
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    case usage = 64
}
