import GronaMockPlatform

/// The violations of an unpaged answer, held as their JSON rather than as values, past `memoryLimit` in a
/// nameless scratch file, and written out in the answer's order (by first event, then rule) a piece at a time.
///
/// The unpaged answer lists every violation by first event, while the scan finds them by install and visit, so
/// the whole answer exists before its first byte can be sent. Held as `Violation`s and then as one body, a
/// dense workspace of a million events (some 440,000 violations) peaked near a gigabyte (issue 32). Here the
/// server keeps 24 bytes per violation (`Entry`) and at most `memoryLimit` bytes of JSON; the rest is in the
/// file, which the kernel's page cache holds or drops as memory allows. If no file can be made, the JSON stays
/// in memory, as large as the answer.
struct ViolationSpool: Sendable {
    /// Where one violation's JSON is, and what it sorts by.
    struct Entry: Sendable {
        var firstEvent: Int64
        var offset: Int
        var length: Int32
        var rule: UInt8
    }

    static let standardMemoryLimit = 4 << 20
    /// About how many bytes each piece of the body holds.
    static let pieceBytes = 256 * 1024

    /// Bytes of JSON held in memory before the spool moves to a file (smaller in tests).
    var memoryLimit = Self.standardMemoryLimit
    private(set) var entries: [Entry] = []
    private var memory: [UInt8] = []
    private var file: ScratchFile?
    private var fileLength = 0
    /// Set when the file refused a write (a full disk): the answer cannot be made whole.
    private(set) var failed = false
    private var encoding: [UInt8] = []

    var count: Int { entries.count }
    /// Whether the JSON is in a scratch file (past `memoryLimit`).
    var isSpilled: Bool { file != nil }

    mutating func append(_ violation: Violation) {
        encoding.removeAll(keepingCapacity: true)
        violation.write(to: &encoding)
        let rule = UInt8(ViolationRule.allCases.firstIndex(of: violation.rule) ?? 0)
        let offset = file == nil ? memory.count : fileLength
        entries.append(
            Entry(
                firstEvent: violation.events.first ?? 0, offset: offset, length: Int32(clamping: encoding.count),
                rule: rule))
        guard let file else {
            memory += encoding
            if memory.count > memoryLimit { spill() }
            return
        }
        if file.write(encoding, at: fileLength) { fileLength += encoding.count } else { failed = true }
    }

    /// Moves what is in memory to a new scratch file; stays in memory if none can be made.
    private mutating func spill() {
        guard let made = ScratchFile(prefix: "grona-mock-violations") else { return }
        guard made.write(memory, at: 0) else { return }
        file = made
        fileLength = memory.count
        memory = []
    }

    /// Puts the entries in the answer's order: by first event, then rule, then as found (the order a stable
    /// sort of the violations gave before).
    mutating func sort() {
        entries.sort { ($0.firstEvent, $0.rule, $0.offset) < ($1.firstEvent, $1.rule, $1.offset) }
    }

    /// Appends the JSON of the entries from `position`, comma-separated as in an array, until about
    /// `pieceBytes` are written; moves `position` past them. False if the file could not be read.
    func write(from position: inout Int, to output: inout [UInt8]) -> Bool {
        let start = output.count
        while position < entries.count, output.count - start < Self.pieceBytes {
            let entry = entries[position]
            if position > 0 { output.append(UInt8(ascii: ",")) }
            let length = Int(entry.length)
            if let file {
                guard file.read(at: entry.offset, count: length, into: &output) else { return false }
            } else {
                output.append(contentsOf: memory[entry.offset..<(entry.offset + length)])
            }
            position += 1
        }
        return true
    }
}
