/// A batch's accepted events packed for writing: the text fields and the JSON of every event in one byte
/// buffer, and per event one fixed-size `Row` of ranges into it.
///
/// The event loop that validated the batch packs it, so the one writer thread finds rows ready to bind: no
/// allocation, copy or formatting per row is left for it. A backend binds straight from `bytes` (SQLite with
/// `SQLITE_STATIC`), and any backend can still read an event back as an `EventRecord` through the collection.
public struct EventRows: Sendable {
    /// Where a field's UTF-8 bytes (or the JSON's) lie in `bytes`.
    public struct Field: Sendable, Equatable {
        public let offset: Int
        public let count: Int
    }

    /// One event: its fields as ranges of `bytes`, an absent optional field nil.
    public struct Row: Sendable {
        public var workspaceKey: Field
        public var eventID: Field
        public var type: Field
        public var timestamp: Int64
        public var receivedAt: Int64
        public var correctedTimestamp: Int64
        public var installID: Field
        public var customerID: Field?
        public var sessionID: Field?
        public var visitID: Field?
        public var campaignID: Field?
        public var variantID: Field?
        public var arm: Field?
        public var placement: Field?
        public var demo: Bool
        public var configRevision: Int64?
        public var totalMinor: Int64?
        /// The row's claimed treatments, as positions in `treatments`.
        public var treatments: Range<Int>
        public var json: Field
        /// The event's slot in `EventTypeCounts`, for the per-type metrics.
        package var typeSlot: Int
    }

    /// A purchase's claimed treatment, packed like a row.
    public struct Treatment: Sendable {
        public var campaignID: Field
        public var variantID: Field
        public var placement: Field
        public var type: Field
        public var valueMilli: Int64
    }

    /// Every field's bytes, one after another.
    public private(set) var bytes: [UInt8] = []
    public private(set) var rows: [Row] = []
    public private(set) var treatments: [Treatment] = []
    /// How many rows there are of each event type.
    package private(set) var typeCounts = EventTypeCounts()

    public init() {}

    public init(_ records: some Sequence<EventRecord>) {
        for record in records { append(record) }
    }

    /// Packs one more event.
    public mutating func append(_ record: EventRecord) {
        let firstTreatment = treatments.count
        for treatment in record.treatments {
            treatments.append(
                Treatment(
                    campaignID: pack(treatment.campaignID), variantID: pack(treatment.variantID),
                    placement: pack(treatment.placement), type: pack(treatment.type),
                    valueMilli: treatment.valueMilli))
        }
        let slot = EventTypeCounts.slot(of: record.type)
        typeCounts.add(slot: slot)
        rows.append(
            Row(
                workspaceKey: pack(record.workspaceKey), eventID: pack(record.eventID), type: pack(record.type),
                timestamp: record.timestamp, receivedAt: record.receivedAt,
                correctedTimestamp: record.correctedTimestamp, installID: pack(record.installID),
                customerID: pack(record.customerID), sessionID: pack(record.sessionID),
                visitID: pack(record.visitID), campaignID: pack(record.campaignID),
                variantID: pack(record.variantID), arm: pack(record.arm), placement: pack(record.placement),
                demo: record.demo, configRevision: record.configRevision, totalMinor: record.totalMinor,
                treatments: firstTreatment..<treatments.count, json: pack(bytes: record.json), typeSlot: slot))
    }

    /// Reserves room for `rows` events of about `bytesPerRow` bytes each, so packing a batch grows the
    /// buffers once.
    public mutating func reserveCapacity(rows count: Int, bytesPerRow: Int) {
        rows.reserveCapacity(count)
        bytes.reserveCapacity(count * bytesPerRow)
    }

    private mutating func pack(_ text: String) -> Field {
        var text = text
        return text.withUTF8 { pack(bytes: $0) }
    }

    private mutating func pack(_ text: String?) -> Field? {
        text.map { pack($0) }
    }

    private mutating func pack(bytes source: some Collection<UInt8>) -> Field {
        let field = Field(offset: bytes.count, count: source.count)
        bytes.append(contentsOf: source)
        return field
    }

    /// A field's text, decoded.
    public func string(_ field: Field) -> String {
        String(decoding: bytes[field.offset..<field.offset + field.count], as: UTF8.self)
    }
}

extension EventRows: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { rows.count }

    /// The event at `position`, unpacked (for backends and checks that want plain values; the writer binds
    /// the packed fields instead).
    public subscript(position: Int) -> EventRecord {
        let row = rows[position]
        let claimed = treatments[row.treatments].map { treatment in
            ClaimedTreatment(
                campaignID: string(treatment.campaignID), variantID: string(treatment.variantID),
                placement: string(treatment.placement), type: string(treatment.type),
                valueMilli: treatment.valueMilli)
        }
        return EventRecord(
            workspaceKey: string(row.workspaceKey), eventID: string(row.eventID), type: string(row.type),
            timestamp: row.timestamp, receivedAt: row.receivedAt, correctedTimestamp: row.correctedTimestamp,
            installID: string(row.installID), customerID: row.customerID.map(string),
            sessionID: row.sessionID.map(string), visitID: row.visitID.map(string),
            campaignID: row.campaignID.map(string), variantID: row.variantID.map(string), arm: row.arm.map(string),
            placement: row.placement.map(string), demo: row.demo, configRevision: row.configRevision,
            treatments: claimed, totalMinor: row.totalMinor,
            json: Array(bytes[row.json.offset..<row.json.offset + row.json.count]))
    }
}

extension EventRows: ExpressibleByArrayLiteral {
    public init(arrayLiteral records: EventRecord...) { self.init(records) }
}
