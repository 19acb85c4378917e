/// Rows of a scan in visit order (`GronaStorage.scanEvents(_:into:_:)`) packed for the trip to another thread: every
/// text column and the JSON of every row in one byte buffer, and per row one fixed-size `Row` of numbers and
/// ranges into it.
///
/// Why packed: as `StoredEventColumns`, each row was some five allocations (its longer ids and its JSON) made on
/// the scan's reading thread and freed on the checking one, and glibc frees another thread's memory under that
/// thread's arena lock. With every visit violating, those allocations, frees and the lock were a fifth of the
/// violations check (issue 32). A batch is two allocations, whatever its rows; the checker makes the strings it
/// keeps on its own thread.
public struct StoredEventBatch: Sendable {
    /// Where a column's bytes lie in `bytes`.
    public struct Field: Sendable, Equatable {
        public var offset: Int32
        public var count: Int32

        /// A NOT NULL column that was NULL anyway (a database another program wrote): read as "".
        public static let empty = Field(offset: 0, count: 0)

        public var range: Range<Int> { Int(offset)..<Int(offset) + Int(count) }
    }

    /// One row: its numbers, and its text columns as fields (nil when NULL).
    public struct Row: Sendable {
        public var sequence: Int64
        public var timestamp: Int64
        public var receivedAt: Int64
        public var correctedTimestamp: Int64
        public var configRevision: Int64?
        public var demo: Bool
        public var eventID: Field
        public var type: Field
        public var installID: Field
        public var customerID: Field?
        public var visitID: Field?
        public var campaignID: Field?
        public var variantID: Field?
        public var arm: Field?
        public var placement: Field?
        public var json: Field

        public init(
            sequence: Int64, timestamp: Int64, receivedAt: Int64, correctedTimestamp: Int64, configRevision: Int64?,
            demo: Bool, eventID: Field, type: Field, installID: Field, customerID: Field?, visitID: Field?,
            campaignID: Field?, variantID: Field?, arm: Field?, placement: Field?, json: Field
        ) {
            self.sequence = sequence
            self.timestamp = timestamp
            self.receivedAt = receivedAt
            self.correctedTimestamp = correctedTimestamp
            self.configRevision = configRevision
            self.demo = demo
            self.eventID = eventID
            self.type = type
            self.installID = installID
            self.customerID = customerID
            self.visitID = visitID
            self.campaignID = campaignID
            self.variantID = variantID
            self.arm = arm
            self.placement = placement
            self.json = json
        }
    }

    /// The columns' bytes, one after another. `Field` holds 32-bit numbers: a scan hands a batch on once it
    /// passes `PrefetchingScan.maxChunkBytes`, and one row is at most SQLite's 1 GB length limit (PostgreSQL's
    /// is the same), so no offset reaches 2 GiB.
    public private(set) var bytes: [UInt8] = []
    public private(set) var rows: [Row] = []
    /// Per row, where the violation check's members lie in its JSON (`CheckedEvent.skim`), found on the scan's
    /// reading thread; empty unless the scan's caller asked for it, and read only while it has every row's.
    var skims: [CheckedEvent.Skim] = []

    public init() {}

    /// An empty batch with room for `rows` rows of about `bytesPerRow` bytes.
    public init(reservingRows count: Int, bytesPerRow: Int) {
        rows.reserveCapacity(count)
        bytes.reserveCapacity(count * bytesPerRow)
    }

    public var count: Int { rows.count }
    public var isEmpty: Bool { rows.isEmpty }

    /// Copies one column's bytes in (a backend passes a pointer into its current row); nil for NULL.
    public mutating func pack(_ source: UnsafeRawBufferPointer?) -> Field? {
        guard let source else { return nil }
        guard let offset = Int32(exactly: bytes.count), let count = Int32(exactly: source.count),
            Int32.max - offset >= count
        else { preconditionFailure("a batch past 2 GiB: hand rows on before (PrefetchingScan.maxChunkBytes)") }
        let field = Field(offset: offset, count: count)
        bytes.append(contentsOf: source)
        return field
    }

    /// Appends a row whose fields `pack` made.
    public mutating func append(_ row: Row) {
        rows.append(row)
    }

    /// Appends a row read whole (a backend without its own packing, and tests).
    public mutating func append(_ row: StoredEventColumns) {
        func pack(_ text: String?) -> Field? {
            guard var text else { return nil }
            return text.withUTF8 { self.pack(UnsafeRawBufferPointer($0)) }
        }
        let eventID = pack(row.eventID) ?? .empty
        let type = pack(row.type) ?? .empty
        let installID = pack(row.installID) ?? .empty
        let customerID = pack(row.customerID)
        let visitID = pack(row.visitID)
        let campaignID = pack(row.campaignID)
        let variantID = pack(row.variantID)
        let arm = pack(row.arm)
        let placement = pack(row.placement)
        let json = row.json.withUnsafeBytes { self.pack($0) } ?? .empty
        append(
            Row(
                sequence: row.sequence, timestamp: row.timestamp, receivedAt: row.receivedAt,
                correctedTimestamp: row.correctedTimestamp, configRevision: row.configRevision, demo: row.demo,
                eventID: eventID, type: type, installID: installID, customerID: customerID, visitID: visitID,
                campaignID: campaignID, variantID: variantID, arm: arm, placement: placement, json: json))
    }

    /// Forgets the rows, keeping the capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        rows.removeAll(keepingCapacity: true)
        skims.removeAll(keepingCapacity: true)
    }

    /// A field's text, decoded (invalid UTF-8 repaired, as reading the column as a `String` does).
    public func string(_ field: Field) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[field.range]), as: UTF8.self)
        }
    }

    /// An optional field's text.
    public func string(_ field: Field?) -> String? {
        field.map { string($0) }
    }

    /// Row `index` unpacked: what `scanEvents` hands over for it.
    public subscript(index: Int) -> StoredEventColumns {
        let row = rows[index]
        return StoredEventColumns(
            sequence: row.sequence, eventID: string(row.eventID), type: string(row.type), timestamp: row.timestamp,
            receivedAt: row.receivedAt, correctedTimestamp: row.correctedTimestamp,
            installID: string(row.installID), customerID: string(row.customerID), visitID: string(row.visitID),
            campaignID: string(row.campaignID), variantID: string(row.variantID), arm: string(row.arm),
            placement: string(row.placement), demo: row.demo, configRevision: row.configRevision,
            json: Array(bytes[row.json.range]))
    }
}
