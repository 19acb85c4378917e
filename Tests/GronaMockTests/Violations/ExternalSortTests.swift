import Testing

@testable import GronaMock

/// `ExternalSort` and `SortableBytes`: records come back in key order whatever their number and the memory
/// limit (one run in memory, a few runs, more runs than are merged at once), and values written as sortable
/// bytes sort as the values do and read back as written.
@Suite("Sorting on disk")
struct ExternalSortTests {
    /// `count` records with keys from a small alphabet (so that many are equal or share a prefix) that includes
    /// the zero byte, and payloads naming their position.
    static func records(_ count: Int, seed: UInt64) -> [(key: [UInt8], payload: [UInt8])] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let length = Int(random.next() % 6)
            let key = (0..<length).map { _ in [0, 1, 0xFF, 65][Int(random.next() % 4)] as UInt8 }
            return (key, Array("record \(index)".utf8) + Array(repeating: 7, count: Int(random.next() % 300)))
        }
    }

    static func sorted(_ records: [(key: [UInt8], payload: [UInt8])], memoryLimit: Int) -> (
        records: [(key: [UInt8], payload: [UInt8])], spilled: Bool, complete: Bool
    ) {
        var sort = ExternalSort(memoryLimit: memoryLimit)
        for record in records { sort.append(key: record.key, payload: record.payload) }
        let spilled = sort.isSpilled
        var out: [(key: [UInt8], payload: [UInt8])] = []
        let complete = sort.drain { key, payload in
            out.append((Array(key), Array(payload)))
            return true
        }
        #expect(sort.count == 0)
        return (out, spilled, complete)
    }

    @Test(
        "records come back sorted by key, each once, whatever the memory limit",
        arguments: [
            (0, 1 << 30), (1, 1 << 30), (2_000, 1 << 30), (2_000, 8_192), (2_000, 1_024), (5_000, 64),
        ])
    func sortsEveryRecord(_ count: Int, _ memoryLimit: Int) {
        let records = Self.records(count, seed: UInt64(count * 31 + memoryLimit))
        let (out, spilled, complete) = Self.sorted(records, memoryLimit: memoryLimit)
        #expect(complete)
        // A run is written once the records held reach the limit: more than one with the smaller limits, and
        // at 64 bytes more than `ExternalSort.mergeWidth`, merged in more than one pass.
        #expect(spilled == (count > 0 && memoryLimit < 1 << 30))
        #expect(out.count == records.count)
        #expect(zip(out, out.dropFirst()).allSatisfy { !$1.key.lexicographicallyPrecedes($0.key) })
        let sortedIn = records.map { $0.key + [0xAA] + $0.payload }.sorted { $0.lexicographicallyPrecedes($1) }
        let sortedOut = out.map { $0.key + [0xAA] + $0.payload }.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(sortedIn == sortedOut)
    }

    @Test("records larger than a read buffer come back whole from disk")
    func largeRecords() {
        let large = (0..<6).map { index in
            (
                key: [UInt8(5 - index)],
                payload: Array(repeating: UInt8(index), count: ExternalSort.readBytes * 3 + index)
            )
        }
        let (out, spilled, complete) = Self.sorted(large, memoryLimit: 1)
        #expect(complete && spilled)
        #expect(out.map(\.key) == large.reversed().map(\.key))
        #expect(out.map(\.payload) == large.reversed().map(\.payload))
    }

    @Test("a reader that answers false stops the records, in memory and from disk", arguments: [1 << 30, 256])
    func stops(_ memoryLimit: Int) {
        var sort = ExternalSort(memoryLimit: memoryLimit)
        for record in Self.records(500, seed: 9) { sort.append(key: record.key, payload: record.payload) }
        var seen = 0
        let complete = sort.drain { _, _ in
            seen += 1
            return seen < 10
        }
        #expect(complete)
        #expect(seen == 10)
    }

    /// A scratch file held in memory that refuses its writes past `writableBytes`, or every read.
    final class FailingFile: SortFile, @unchecked Sendable {
        private var bytes: [UInt8] = []
        let writableBytes: Int
        let refusesReads: Bool

        init(writableBytes: Int = .max, refusesReads: Bool = false) {
            self.writableBytes = writableBytes
            self.refusesReads = refusesReads
        }

        func write(_ data: [UInt8], at offset: Int) -> Bool {
            guard offset + data.count <= writableBytes else { return false }
            if bytes.count < offset + data.count { bytes += repeatElement(0, count: offset + data.count - bytes.count) }
            bytes.replaceSubrange(offset..<(offset + data.count), with: data)
            return true
        }

        func read(at offset: Int, count: Int, into output: inout [UInt8]) -> Bool {
            guard !refusesReads, offset + count <= bytes.count else { return false }
            output += bytes[offset..<(offset + count)]
            return true
        }
    }

    @Test(
        "a scratch file that refuses a write or a read fails the sort: never fewer records as if complete",
        arguments: [(10_000, false), (0, false), (.max, true)])
    func failingFile(_ writableBytes: Int, _ refusesReads: Bool) {
        let file = FailingFile(writableBytes: writableBytes, refusesReads: refusesReads)
        var sort = ExternalSort(memoryLimit: 1_024) { file }
        for record in Self.records(2_000, seed: 3) { sort.append(key: record.key, payload: record.payload) }
        #expect(sort.count == 2_000)
        var seen = 0
        let complete = sort.drain { _, _ in
            seen += 1
            return true
        }
        #expect(!complete)
        #expect(seen < 2_000)
    }

    @Test("with no scratch file to be had, every record stays in memory and comes back sorted")
    func noFile() {
        let records = Self.records(2_000, seed: 4)
        var sort = ExternalSort(memoryLimit: 1_024) { nil }
        for record in records { sort.append(key: record.key, payload: record.payload) }
        #expect(!sort.isSpilled)
        var keys: [[UInt8]] = []
        let complete = sort.drain { key, _ in
            keys.append(Array(key))
            return true
        }
        #expect(complete)
        #expect(keys == records.map(\.key).sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test("sortable bytes sort as their values and read back as written")
    func sortableBytes() throws {
        let strings = ["", "\u{0}", "\u{0}\u{0}", "a", "a\u{0}", "a\u{0}b", "ab", "b", "é", "\u{FFFF}"]
        let numbers: [Int64] = [.min, -1_000, -1, 0, 1, 255, 256, 1 << 40, .max]
        func bytes(_ write: (inout SortableBytes) -> Void) -> [UInt8] {
            var bytes = SortableBytes()
            write(&bytes)
            return bytes.bytes
        }
        for (left, right) in zip(strings, strings.dropFirst()) {
            #expect(bytes { $0.append(left) }.lexicographicallyPrecedes(bytes { $0.append(right) }), "\(left)")
            // A string ends where it ends: what follows it does not change its order.
            #expect(
                bytes {
                    $0.append(left)
                    $0.append(Int64.max)
                }.lexicographicallyPrecedes(
                    bytes {
                        $0.append(right)
                        $0.append(Int64.min)
                    }))
        }
        for (left, right) in zip(numbers, numbers.dropFirst()) {
            #expect(bytes { $0.append(left) }.lexicographicallyPrecedes(bytes { $0.append(right) }), "\(left)")
        }
        #expect(bytes { $0.append(nil as String?) }.lexicographicallyPrecedes(bytes { $0.append("" as String?) }))
        let written = bytes { bytes in
            for string in strings { bytes.append(string) }
            for number in numbers { bytes.append(number) }
            bytes.append(nil as String?)
            bytes.append("k" as String?)
            bytes.append(7 as UInt8)
        }
        var reader = SortableBytesReader(written[...])
        for string in strings { #expect(reader.string() == string) }
        for number in numbers { #expect(reader.int64() == number) }
        #expect(reader.optionalString() == .some(nil))
        #expect(reader.optionalString() == .some("k"))
        #expect(reader.byte() == 7)
        #expect(reader.isAtEnd && reader.byte() == nil && reader.int64() == nil && reader.string() == nil)
        // Bytes it did not write read as nil, never as a crash.
        var damaged = SortableBytesReader([0x61, 0, 0x17, 0][...])
        #expect(damaged.string() == nil)
        var short = SortableBytesReader([1, 2, 3][...])
        #expect(short.int64() == nil)
        var unknown = SortableBytesReader([9][...])
        #expect(unknown.optionalString() == nil)
    }
}
