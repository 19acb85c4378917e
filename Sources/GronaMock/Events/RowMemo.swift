#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What reading one row of a scan in visit order leaves for the next (`CheckedEvent(_:row:columns:)`): the JSON
/// skim's buffers, and the text columns that repeat from row to row, each kept as the value the checker
/// reads (a `String`, or a vocabulary's case) while the next row holds the same bytes: a visit's install,
/// customer and visit ids, and mostly its campaigns, variants, types, placements and arms. With every visit
/// violating, making those eight strings again for every event (each checked for valid UTF-8, the longer ones
/// allocated) was a tenth of the check (issue 32); now a row that repeats its neighbour's costs a `memcmp` per
/// column.
///
/// Bytes that are not valid UTF-8 are read as `String(decoding:)` repairs them, as before; their repaired text
/// never equals the bytes, so such a column is simply read again on every row.
struct RowMemo {
    var installID = TextMemo<String>()
    var customerID = TextMemo<String>()
    var visitID = TextMemo<String>()
    var campaignID = TextMemo<String>()
    var variantID = TextMemo<String>()
    var type = TextMemo<EventType>()
    var placement = TextMemo<Placement>()
    var arm = TextMemo<Arm>()
    /// Where the skim found the event's members, and its screen's (`JSONMembers.ranges(in:keys:into:)`).
    var members: [Range<Int>?] = []
    var screenMembers: [Range<Int>?] = []
}

/// One column's last text and the value read from it.
struct TextMemo<Value> {
    private var text = ""
    private var value: Value?

    /// The value of `field` in `batch` (nil for NULL): the last one when the bytes are the same, else `read`
    /// of the new text.
    mutating func value(
        _ batch: StoredEventBatch, _ field: StoredEventBatch.Field?, _ read: (String) -> Value
    ) -> Value? {
        guard let field else { return nil }
        if let value,
            batch.bytes.withUnsafeBytes({ Self.holds(text, UnsafeRawBufferPointer(rebasing: $0[field.range])) })
        {
            return value
        }
        text = batch.string(field)
        let new = read(text)
        value = new
        return new
    }

    /// Whether `text` is exactly `bytes`.
    private static func holds(_ text: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let same = text.utf8.withContiguousStorageIfAvailable { utf8 in
            utf8.count == bytes.count
                && (bytes.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
        return same ?? false
    }
}

extension TextMemo where Value == String {
    /// A string column's text.
    mutating func value(_ batch: StoredEventBatch, _ field: StoredEventBatch.Field?) -> String? {
        value(batch, field) { $0 }
    }
}
