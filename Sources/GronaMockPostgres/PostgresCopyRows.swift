/// Rows in PostgreSQL's binary `COPY` format (PostgreSQL manual, "COPY", section "Binary Format"): a
/// signature, flags and header extension, then per row its field count and each field as a 32-bit length
/// (-1 for NULL) and its bytes in the type's binary form, then a trailer of -1. Binary, so nothing is escaped:
/// a tab, newline, backslash or any other byte of a bytea travels as itself, which the text format would have
/// to escape and unescape on both ends.
struct PostgresCopyRows {
    private static let signature: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]

    private(set) var bytes: [UInt8]
    private(set) var count = 0

    init(reservingBytes: Int = 0) {
        bytes = []
        bytes.reserveCapacity(19 + reservingBytes)
        bytes.append(contentsOf: Self.signature)
        bytes.appendBigEndian(Int32(0))  // flags: no OIDs
        bytes.appendBigEndian(Int32(0))  // header extension length
    }

    /// Starts a row of `fields` fields; the caller then appends exactly that many.
    mutating func startRow(fields: Int16) {
        bytes.appendBigEndian(fields)
        count += 1
    }

    /// A bytea field (text as its UTF-8 bytes), or NULL.
    mutating func append(_ value: some Collection<UInt8>) {
        bytes.appendBigEndian(Int32(clamping: value.count))
        bytes.append(contentsOf: value)
    }

    mutating func appendNull() {
        bytes.appendBigEndian(Int32(-1))
    }

    /// A bigint field, or NULL.
    mutating func append(_ value: Int64?) {
        guard let value else { return appendNull() }
        bytes.appendBigEndian(Int32(8))
        bytes.appendBigEndian(value)
    }

    /// A boolean field.
    mutating func append(_ value: Bool) {
        bytes.appendBigEndian(Int32(1))
        bytes.append(value ? 1 : 0)
    }

    /// The bytes encoded since the last call, handed over to be sent (the stream's next piece).
    mutating func take() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    /// The stream's last piece: what is left, and the trailer.
    mutating func finish() -> [UInt8] {
        bytes.appendBigEndian(Int16(-1))
        return take()
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: Int16) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
