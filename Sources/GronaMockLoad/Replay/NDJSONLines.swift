#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lines of a file, read in 64 KiB pieces and handed out one at a time with their 1-based numbers: memory
/// is one piece and one line, whatever the file's size. A line longer than `maximumLineBytes` is handed out
/// cut short, flagged, so that the caller can report it by number without holding it.
final class NDJSONLines {
    /// Longer than any event the contract allows (512 KiB per batch).
    static let maximumLineBytes = 1024 * 1024

    struct Line {
        var number: Int
        var bytes: [UInt8]
        var tooLong: Bool
    }

    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private var number = 0

    /// Opens `path` for reading; a refusal says why.
    init(path: String) throws(ReplayFileError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ReplayFileError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
    }

    deinit { if fd >= 0 { close(fd) } }

    /// The next line without its end (`\n` or `\r\n`), nil at the end of the file.
    func next() throws(ReplayFileError) -> Line? {
        var line: [UInt8] = []
        var tooLong = false
        while true {
            if position == buffer.count {
                if atEnd { break }
                try refill()
                continue
            }
            let rest = buffer[position...]
            let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
            let piece = rest[..<(newline ?? rest.endIndex)]
            if line.count + piece.count <= Self.maximumLineBytes { line += piece } else { tooLong = true }
            position = newline.map { $0 + 1 } ?? buffer.count
            if newline != nil {
                number += 1
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return Line(number: number, bytes: line, tooLong: tooLong)
            }
        }
        guard !line.isEmpty || tooLong else { return nil }
        number += 1
        return Line(number: number, bytes: line, tooLong: tooLong)
    }

    private func refill() throws(ReplayFileError) {
        buffer = [UInt8](repeating: 0, count: 64 * 1024)
        position = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw ReplayFileError("cannot read the replay file: \(String(cString: strerror(errno)))")
            }
            buffer.removeSubrange(count...)
            atEnd = count == 0
            return
        }
    }
}

/// The replay file cannot be used: one sentence, naming the line where there is one.
package struct ReplayFileError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
