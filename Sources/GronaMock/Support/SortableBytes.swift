/// Values written as bytes that sort as the values do, and read back: the keys and payloads of an
/// `ExternalSort`, which compares records as plain bytes.
struct SortableBytes {
    private(set) var bytes: [UInt8] = []

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    mutating func append(_ value: UInt8) { bytes.append(value) }

    /// Big-endian with the sign bit flipped, so that negative numbers come first.
    mutating func append(_ value: Int64) {
        let bits = UInt64(bitPattern: value) ^ (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
    }

    /// Its UTF-8 with each zero byte doubled as 0, 0xFF and the end marked by 0, 0: a string sorts before every
    /// longer one it begins, and a zero byte inside it (JSON allows `\u0000`) never reads as its end.
    mutating func append(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            // A string without a zero byte (every one a client sends, in practice) is copied whole.
            if !utf8.contains(0) {
                bytes.append(contentsOf: utf8)
            } else {
                for byte in utf8 {
                    bytes.append(byte)
                    if byte == 0 { bytes.append(0xFF) }
                }
            }
        }
        bytes.append(0)
        bytes.append(0)
    }

    /// Absent (0) before present (1, then the string).
    mutating func append(_ value: String?) {
        guard let value else { return append(0 as UInt8) }
        append(1 as UInt8)
        append(value)
    }
}

/// Reads back what `SortableBytes` wrote, in the same order; nil for bytes it did not write (a truncated or
/// damaged record), never a crash.
struct SortableBytesReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    var isAtEnd: Bool { position == bytes.endIndex }

    mutating func byte() -> UInt8? {
        guard position < bytes.endIndex else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func int64() -> Int64? {
        guard bytes.endIndex - position >= 8 else { return nil }
        var bits: UInt64 = 0
        for index in position..<(position + 8) { bits = bits << 8 | UInt64(bytes[index]) }
        position += 8
        return Int64(bitPattern: bits ^ (1 << 63))
    }

    mutating func string() -> String? {
        // Most strings have no zero byte inside: their end is the first zero byte, and they are read in place.
        if let end = bytes[position...].firstIndex(of: 0), end + 1 < bytes.endIndex, bytes[end + 1] == 0 {
            defer { position = end + 2 }
            return String(decoding: bytes[position..<end], as: UTF8.self)
        }
        var utf8: [UInt8] = []
        while position < bytes.endIndex {
            let byte = bytes[position]
            position += 1
            guard byte == 0 else {
                utf8.append(byte)
                continue
            }
            guard position < bytes.endIndex else { return nil }
            let next = bytes[position]
            position += 1
            switch next {
            case 0: return String(decoding: utf8, as: UTF8.self)
            case 0xFF: utf8.append(0)
            default: return nil
            }
        }
        return nil
    }

    /// `.some(nil)` for an absent string, nil for bytes that are neither.
    mutating func optionalString() -> String?? {
        switch byte() {
        case 0: return .some(nil)
        case 1: return string().map { .some($0) }
        default: return nil
        }
    }
}
