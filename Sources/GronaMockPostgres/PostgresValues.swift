/// Values to and from PostgreSQL in its binary format: parameters are bytes with a type, never text quoted
/// into SQL, and rows are read the same way. No libpq here: `Libpq.swift` hands these buffers over.

/// The types grona-mock binds and reads, by their number in `pg_type`.
enum PostgresType: UInt32 {
    case bool = 16
    case bytea = 17
    case int8 = 20
    case boolArray = 1000
    case byteaArray = 1001
    case int8Array = 1016
}

/// One statement's parameters, in binary format: each one a range of `bytes`, or nil for SQL NULL.
struct PostgresBinds {
    private(set) var types: [PostgresType] = []
    /// Starts with one byte, so that a zero-length value (an empty bytea) still has an address: libpq reads
    /// a null pointer as SQL NULL.
    private var bytes: [UInt8] = [0]
    private var ranges: [Range<Int>?] = []

    init() {}

    /// The parameter number the next value gets, as written in SQL (`$1`, `$2`, …).
    var nextPlaceholder: String { "$\(types.count + 1)" }

    mutating func append(_ value: Int64?) {
        guard let value else { return appendNull(.int8) }
        append(.int8) { $0.appendBigEndian(value) }
    }

    mutating func append(_ value: Bool) {
        append(.bool) { $0.append(value ? 1 : 0) }
    }

    /// Text as bytea, its UTF-8 bytes: see `Schema` for why every text column is bytea.
    mutating func append(_ text: String?) {
        guard var text else { return appendNull(.bytea) }
        text.withUTF8 { utf8 in append(.bytea) { $0.append(contentsOf: utf8) } }
    }

    mutating func append(bytes value: [UInt8]?) {
        guard let value else { return appendNull(.bytea) }
        append(.bytea) { $0.append(contentsOf: value) }
    }

    mutating func append(_ array: PostgresArray) {
        append(array.type) { $0.append(contentsOf: array.encoded) }
    }

    /// Appends `value` and returns its placeholder, for building a condition.
    mutating func placeholder(_ value: String?) -> String {
        defer { append(value) }
        return nextPlaceholder
    }

    mutating func placeholder(_ value: Int64?) -> String {
        defer { append(value) }
        return nextPlaceholder
    }

    private mutating func appendNull(_ type: PostgresType) {
        types.append(type)
        ranges.append(nil)
    }

    private mutating func append(_ type: PostgresType, _ write: (inout [UInt8]) -> Void) {
        let start = bytes.count
        write(&bytes)
        types.append(type)
        ranges.append(start..<bytes.count)
    }

    /// Calls `body` with libpq's parameter arrays: count, types, values, lengths and formats (all binary).
    func withUnsafeParameters<T>(
        _ body: (
            Int32, UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?
        ) -> T
    ) -> T {
        let typeNumbers = types.map(\.rawValue)
        let lengths = ranges.map { Int32(clamping: $0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: ranges.count)
        return bytes.withUnsafeBytes { buffer in
            let values: [UnsafePointer<CChar>?] = ranges.map { range in
                range.flatMap { buffer.baseAddress?.advanced(by: $0.lowerBound).assumingMemoryBound(to: CChar.self) }
            }
            return body(Int32(clamping: types.count), typeNumbers, values, lengths, formats)
        }
    }
}

/// A one-dimensional array parameter in binary format (`array_recv`): a header, then each element as its
/// length and bytes (-1 for NULL). One array per column lets a single prepared `INSERT … SELECT FROM
/// unnest(…)` write any number of rows.
struct PostgresArray {
    let type: PostgresType
    private let elementType: PostgresType
    private var body: [UInt8] = []
    private(set) var count = 0
    private var hasNulls = false

    init(of elementType: PostgresType, reservingBytes: Int = 0) {
        self.elementType = elementType
        type =
            switch elementType {
            case .bool: .boolArray
            case .int8: .int8Array
            default: .byteaArray
            }
        body.reserveCapacity(reservingBytes)
    }

    mutating func append(_ value: Int64?) {
        guard let value else { return appendNull() }
        body.appendBigEndian(Int32(8))
        body.appendBigEndian(value)
        count += 1
    }

    mutating func append(_ value: Bool) {
        body.appendBigEndian(Int32(1))
        body.append(value ? 1 : 0)
        count += 1
    }

    /// A bytea element (text as its UTF-8 bytes).
    mutating func append(_ bytes: some Collection<UInt8>) {
        body.appendBigEndian(Int32(clamping: bytes.count))
        body.append(contentsOf: bytes)
        count += 1
    }

    mutating func append(_ text: String?) {
        guard let text else { return appendNull() }
        append(text.utf8)
    }

    mutating func appendNull() {
        body.appendBigEndian(Int32(-1))
        hasNulls = true
        count += 1
    }

    /// The array as `array_recv` reads it: dimensions, a has-nulls flag, the element type, then per
    /// dimension its length and lower bound (1), then the elements. An empty array has no dimension.
    var encoded: [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(20 + body.count)
        header.appendBigEndian(Int32(count == 0 ? 0 : 1))
        header.appendBigEndian(Int32(hasNulls ? 1 : 0))
        header.appendBigEndian(Int32(bitPattern: elementType.rawValue))
        if count > 0 {
            header.appendBigEndian(Int32(clamping: count))
            header.appendBigEndian(Int32(1))
        }
        return header + body
    }
}

extension [UInt8] {
    /// The value's bytes most significant first, in one append (the COPY and array encoders' hot path).
    mutating func appendBigEndian(_ value: Int64) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    mutating func appendBigEndian(_ value: Int32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}

/// Reading a binary result's values by row and column.
extension PostgresResult {
    /// A bigint, integer or smallint (binary: big-endian two's complement of 8, 4 or 2 bytes); 0 for NULL.
    func int64(_ row: Int, _ column: Int) -> Int64 {
        withBytes(row, column) { bytes in
            let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            switch bytes.count {
            case 8: return Int64(bitPattern: value)
            case 4: return Int64(Int32(truncatingIfNeeded: value))
            case 2: return Int64(Int16(truncatingIfNeeded: value))
            default: return 0
            }
        }
    }

    func optionalInt64(_ row: Int, _ column: Int) -> Int64? {
        isNull(row, column) ? nil : int64(row, column)
    }

    func bool(_ row: Int, _ column: Int) -> Bool {
        withBytes(row, column) { $0.first.map { $0 != 0 } ?? false }
    }

    /// A bytea's or a text's bytes.
    func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        withBytes(row, column) { Array($0) }
    }

    /// A bytea or text column read as UTF-8 text; nil for NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        isNull(row, column) ? nil : withBytes(row, column) { String(decoding: $0, as: UTF8.self) }
    }
}
