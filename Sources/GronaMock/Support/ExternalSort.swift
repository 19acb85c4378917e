import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Records sorted by a key of bytes (`SortableBytes`), in memory bounded by `memoryLimit` (and 24 bytes a
/// record held for where it is) however many there are: past it, the records held are sorted and written to a
/// nameless scratch file as a run, and reading them back merges the runs, `mergeWidth` at a time, each through
/// a buffer of `readBytes`. Merged runs are appended to the same file, which is given back whole when the sort
/// is drained. A struct that owns its file: it is never copied while in use.
///
/// Why: a visit of a broken SDK (one install and visit id for everything) can hold a million events that
/// only the visit's end can judge, and holding them was the last of the violation checker's memory that grew
/// with the data (issue 32). If no scratch file can be made, the records stay in memory, as many as they are.
struct ExternalSort {
    /// Runs of 2 MB: a visit's two sorts and their buffers then add under 10 MB to the server, and a million
    /// events of 120 bytes make some 60 runs, merged in one pass.
    static let standardMemoryLimit = 2 << 20
    /// The most runs merged at once (128 MB of runs of 2 MB): more are first merged into longer runs, so that
    /// the read buffers stay bounded too (2 MB for 64).
    static let mergeWidth = 64
    static let readBytes = 32 << 10

    /// Bytes of records held before they are written out as a run (smaller in tests).
    var memoryLimit: Int
    /// Each record as its key's length and payload's length (4 bytes each, little-endian), key, payload.
    private var held: [UInt8] = []
    /// Where each record held is, so that sorting compares keys without reading their lengths again.
    private var spans: [Span] = []
    private var file: (any SortFile)?
    private var fileLength = 0
    private var runs: [Range<Int>] = []
    /// Set when the scratch file refused a write or a read (a full disk): the records are not all there.
    private(set) var failed = false
    private(set) var count = 0

    /// Makes the scratch file at the first run (tests give one that fails).
    let makeFile: @Sendable () -> (any SortFile)?

    /// A nameless file in `$TMPDIR`: what a sort writes its runs to unless told otherwise.
    static let scratchFile: @Sendable () -> (any SortFile)? = { ScratchFile(prefix: "grona-mock-sort") }

    init(memoryLimit: Int = Self.standardMemoryLimit, makeFile: @escaping @Sendable () -> (any SortFile)? = scratchFile)
    {
        self.memoryLimit = memoryLimit
        self.makeFile = makeFile
    }

    /// Whether runs were written to the scratch file.
    var isSpilled: Bool { !runs.isEmpty }

    mutating func append(key: [UInt8], payload: [UInt8]) {
        count += 1
        // The records are not all there any more: keeping more would only fill the disk further.
        guard !failed else { return }
        spans.append(Span(start: held.count, keyLength: key.count, payloadLength: payload.count))
        Self.appendLength(key.count, to: &held)
        Self.appendLength(payload.count, to: &held)
        held += key
        held += payload
        if held.count >= memoryLimit { writeHeldRun() }
    }

    /// Hands each record to `body` in key order (records with equal keys in no particular order) until it
    /// answers false, and forgets them all. False when records were lost to the scratch file's errors.
    mutating func drain(_ body: (_ key: ArraySlice<UInt8>, _ payload: ArraySlice<UInt8>) -> Bool) -> Bool {
        defer { self = ExternalSort(memoryLimit: memoryLimit, makeFile: makeFile) }
        guard !runs.isEmpty else {
            sortHeld()
            for span in spans {
                guard body(held[span.key], held[span.payload]) else { break }
            }
            return !failed
        }
        if !spans.isEmpty { writeHeldRun() }
        guard let file, !failed else { return false }
        while runs.count > Self.mergeWidth {
            let merging = Array(runs.prefix(Self.mergeWidth))
            runs.removeFirst(Self.mergeWidth)
            let start = fileLength
            var output: [UInt8] = []
            var written = true
            let read = Self.merge(merging, from: file) { key, payload in
                Self.appendLength(key.count, to: &output)
                Self.appendLength(payload.count, to: &output)
                output += key
                output += payload
                if output.count >= Self.readBytes { written = Self.write(&output, to: file, at: &fileLength) }
                return written
            }
            guard read, written, Self.write(&output, to: file, at: &fileLength) else { return false }
            runs.append(start..<fileLength)
        }
        return Self.merge(runs, from: file, body)
    }

    /// Sorts the records held and appends them to the scratch file as one run; keeps them in memory (and stops
    /// trying) if no file can be made.
    private mutating func writeHeldRun() {
        guard let file = file ?? makeFile() else {
            memoryLimit = .max
            return
        }
        self.file = file
        sortHeld()
        let start = fileLength
        var output: [UInt8] = []
        output.reserveCapacity(Self.readBytes)
        for span in spans {
            output += held[span.start..<span.payload.upperBound]
            if output.count >= Self.readBytes { flush(&output) }
        }
        flush(&output)
        runs.append(start..<fileLength)
        held.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
    }

    /// Appends `output` to the scratch file and empties it; false if the file refused it.
    private static func write(_ output: inout [UInt8], to file: any SortFile, at length: inout Int) -> Bool {
        guard !output.isEmpty else { return true }
        defer { output.removeAll(keepingCapacity: true) }
        guard file.write(output, at: length) else { return false }
        length += output.count
        return true
    }

    private mutating func flush(_ output: inout [UInt8]) {
        guard let file else { return }
        if !Self.write(&output, to: file, at: &fileLength) { failed = true }
    }

    private mutating func sortHeld() {
        held.withUnsafeBytes { bytes in
            spans.sort {
                Self.precedes(
                    UnsafeRawBufferPointer(rebasing: bytes[$0.key]), UnsafeRawBufferPointer(rebasing: bytes[$1.key]))
            }
        }
    }

    /// Whether the key `left` sorts before `right`: byte by byte, a key before the longer keys it begins.
    static func precedes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        let common = min(left.count, right.count)
        if common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
            let order = memcmp(leftBase, rightBase, common)
            if order != 0 { return order < 0 }
        }
        return left.count < right.count
    }

    static func precedes(_ left: ArraySlice<UInt8>, _ right: ArraySlice<UInt8>) -> Bool {
        left.withUnsafeBytes { left in right.withUnsafeBytes { right in precedes(left, right) } }
    }

    /// Merges `runs` of the scratch file into one stream of records in key order, until `body` answers false;
    /// false if the file could not be read.
    private static func merge(
        _ runs: [Range<Int>], from file: any SortFile,
        _ body: (_ key: ArraySlice<UInt8>, _ payload: ArraySlice<UInt8>) -> Bool
    ) -> Bool {
        var readers: [RunReader] = []
        for run in runs {
            var reader = RunReader(run: run)
            switch reader.advance(file) {
            case .record: readers.append(reader)
            case .end: continue
            case .failed: return false
            }
        }
        // The readers as a binary heap by their record's key: the least on top, found in a few comparisons
        // however many runs are merged.
        func precedes(_ left: Int, _ right: Int) -> Bool {
            Self.precedes(readers[left].key, readers[right].key)
        }
        var heap = Array(readers.indices)
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                var least = parent
                let left = 2 * parent + 1
                if left < heap.count, precedes(heap[left], heap[least]) { least = left }
                if left + 1 < heap.count, precedes(heap[left + 1], heap[least]) { least = left + 1 }
                guard least != parent else { return }
                heap.swapAt(parent, least)
                parent = least
            }
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        while let top = heap.first {
            guard body(readers[top].key, readers[top].payload) else { return true }
            switch readers[top].advance(file) {
            case .record: break
            case .end:
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
            case .failed: return false
            }
            siftDown(0)
        }
        return true
    }

    private static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        let value = UInt32(clamping: length)
        for shift in stride(from: 0, through: 24, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    private static func length<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes, at index: Bytes.Index) -> Int
    where Bytes.Index == Int {
        var value = 0
        for offset in 0..<4 { value |= Int(bytes[index + offset]) << (8 * offset) }
        return value
    }

    /// Where the key and the payload of the record at `start` are.
    fileprivate static func record<Bytes: RandomAccessCollection<UInt8>>(
        in bytes: Bytes, at start: Int
    ) -> (key: Range<Int>, payload: Range<Int>) where Bytes.Index == Int {
        let keyStart = start + 8
        let payloadStart = keyStart + length(in: bytes, at: start)
        return (keyStart..<payloadStart, payloadStart..<(payloadStart + length(in: bytes, at: start + 4)))
    }
}

/// Where an `ExternalSort` writes its runs and reads them back: a `ScratchFile`, or in tests a file that fails.
protocol SortFile: AnyObject, Sendable {
    func write(_ bytes: [UInt8], at offset: Int) -> Bool
    func read(at offset: Int, count: Int, into output: inout [UInt8]) -> Bool
}

extension ScratchFile: SortFile {}

/// Where a record held is: its header (the two lengths) at `start`, then its key and its payload.
private struct Span {
    var start: Int
    var keyLength: Int
    var payloadLength: Int

    var key: Range<Int> { (start + 8)..<(start + 8 + keyLength) }
    var payload: Range<Int> { key.upperBound..<(key.upperBound + payloadLength) }
}

/// Reads one run of an `ExternalSort`'s scratch file a buffer at a time, one record after the other.
private struct RunReader {
    enum Step { case record, end, failed }

    /// The file offset of the next byte not yet in `buffer`, and the run's end.
    private var next: Int
    private let end: Int
    private var buffer: [UInt8] = []
    /// Where the record at hand starts in `buffer`.
    private var position = 0
    private var keyRange = 0..<0
    private var payloadRange = 0..<0

    init(run: Range<Int>) {
        next = run.lowerBound
        end = run.upperBound
    }

    var key: ArraySlice<UInt8> { buffer[keyRange] }
    var payload: ArraySlice<UInt8> { buffer[payloadRange] }

    /// Moves to the next record.
    mutating func advance(_ file: any SortFile) -> Step {
        position = payloadRange.upperBound
        if buffer.count - position < 8 && next >= end { return buffer.count == position ? .end : .failed }
        guard fill(8, file) else { return .failed }
        let length = ExternalSort.record(in: buffer, at: position).payload.upperBound - position
        // A length past the run's end is a damaged record: failed at once, without reading the rest of the run.
        guard length <= buffer.count - position + (end - next), fill(length, file) else { return .failed }
        (keyRange, payloadRange) = ExternalSort.record(in: buffer, at: position)
        return .record
    }

    /// Reads until the buffer holds `count` bytes from `position`, first dropping what is before it.
    private mutating func fill(_ count: Int, _ file: any SortFile) -> Bool {
        guard buffer.count - position < count else { return true }
        buffer.removeSubrange(..<position)
        position = 0
        keyRange = 0..<0
        payloadRange = 0..<0
        while buffer.count < count {
            let reading = min(max(ExternalSort.readBytes, count - buffer.count), end - next)
            guard reading > 0, file.read(at: next, count: reading, into: &buffer) else { return false }
            next += reading
        }
        return true
    }
}
