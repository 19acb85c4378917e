#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A nameless temporary file for bytes that need not stay in memory (an answer being assembled): made in
/// `$TMPDIR` (or /tmp) and unlinked at once, so it has no name from the start and its space goes back when
/// the owner releases it, even if the process is killed. Written and read at offsets (pwrite/pread), so the
/// owner keeps its own length and no file position is shared. The descriptor closes in `deinit`.
package final class ScratchFile: Sendable {
    private let descriptor: Int32

    /// A new empty file; nil when none can be made (no writable temporary directory), and the caller keeps
    /// its bytes in memory instead.
    package init?(prefix: String) {
        let environment = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        let directory = environment.isEmpty ? "/tmp" : environment
        var template = Array("\(directory)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard made >= 0 else { return nil }
        template.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { _ = unlink(base) }
        }
        descriptor = made
    }

    deinit { close(descriptor) }

    /// Writes `bytes` at `offset`, all of them; false on an error of the system (a full disk).
    package func write(_ bytes: [UInt8], at offset: Int) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress.map { $0 + done }, bytes.count - done, off_t(offset + done))
            }
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += count
        }
        return true
    }

    /// Appends `count` bytes read from `offset` to `output`; false on an error or a file shorter than that.
    package func read(at offset: Int, count: Int, into output: inout [UInt8]) -> Bool {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: count))
        var done = 0
        while done < count {
            let read = output.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress.map { $0 + start + done }, count - done, off_t(offset + done))
            }
            if read < 0 {
                if errno == EINTR { continue }
                output.removeSubrange(start...)
                return false
            }
            if read == 0 {
                output.removeSubrange(start...)
                return false
            }
            done += read
        }
        return true
    }
}
