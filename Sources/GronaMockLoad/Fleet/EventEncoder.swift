import GronaMock
import GronaMockJSON

/// Writes events (contract §7) by appending bytes to a buffer the caller reuses: no JSON tree, no string
/// interpolation, no allocation per event once the buffers have grown. Ids from the configuration arrive
/// already JSON-encoded (`FleetCampaign.idJSON`), so an event is mostly copies.
package struct EventEncoder: Sendable {
    /// The run's tag, the prefix of every event id: `<runTag>-<install>-<counter>`.
    package let runTag: [UInt8]

    /// The fleet-wide index of this process's install 0 (`LoadShard.firstInstall`): ids name installs by their
    /// index in the whole fleet, so that the shards of one run never share one.
    package let firstInstall: Int

    package init(runTag: String, firstInstall: Int = 0) {
        self.runTag = Array(runTag.utf8)
        self.firstInstall = firstInstall
    }

    /// What every event of one visit shares.
    package struct VisitFrame: Sendable {
        package var install: Int
        package var timestamp: Int64
        /// `"<runTag>-<install>-v<n>"`, quoted.
        package var visitID: [UInt8] = []
        /// `{"type":…}` with its `id`, `name` or `treatments`.
        package var screen: [UInt8] = []
        /// The customer id, quoted, or empty for an anonymous shopper.
        package var customer: [UInt8] = []
        package var demo = false
        package var revision: Int64 = 0

        package init(install: Int, timestamp: Int64) {
            self.install = install
            self.timestamp = timestamp
        }
    }

    /// `load-<runTag>-<install>`: the batch's `installID`, and the unit of install-unit campaigns.
    package func installID(_ install: Int) -> String {
        "load-" + String(decoding: runTag, as: UTF8.self) + "-" + String(firstInstall + install)
    }

    /// A visit's frame, with its `visitID` `<runTag>-<install>-v<visit>`; `install` is this process's index,
    /// the frame holds the fleet-wide one.
    package func frame(install local: Int, visit: UInt32, timestamp: Int64) -> VisitFrame {
        let install = firstInstall + local
        var frame = VisitFrame(install: install, timestamp: timestamp)
        frame.visitID.reserveCapacity(runTag.count + 24)
        frame.visitID.append(UInt8(ascii: "\""))
        frame.visitID += runTag
        frame.visitID.append(UInt8(ascii: "-"))
        Self.appendDecimal(Int64(install), to: &frame.visitID)
        frame.visitID += "-v".utf8
        Self.appendDecimal(Int64(visit), to: &frame.visitID)
        frame.visitID.append(UInt8(ascii: "\""))
        return frame
    }

    /// `,{…}`: one placement event, with its leading comma (a batch drops the first).
    package func appendPlacementEvent(
        _ type: EventType, counter: UInt32, frame: VisitFrame, offset: Int64, campaign: FleetCampaign,
        variant: FleetVariant, arm: Arm, key: [UInt8]?, action: [UInt8]? = nil, result: ActionResult? = nil,
        into out: inout [UInt8]
    ) {
        appendHead(type, counter: counter, frame: frame, offset: offset, into: &out)
        out += ",\"placement\":".utf8
        out += campaign.placementJSON
        out += ",\"screen\":".utf8
        out += frame.screen
        out += ",\"key\":".utf8
        if let key { out += key } else { out += "null".utf8 }
        out += ",\"visitID\":".utf8
        out += frame.visitID
        out += ",\"campaignID\":".utf8
        out += campaign.idJSON
        out += ",\"variantID\":".utf8
        out += variant.idJSON
        out += ",\"arm\":\"".utf8
        out += arm.rawValue.utf8
        out.append(UInt8(ascii: "\""))
        if let action, let result {
            out += ",\"action\":".utf8
            out += action
            out += ",\"result\":\"".utf8
            out += result.rawValue.utf8
            out += "\"}".utf8
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `,{…}`: a purchase with the treatments the order backend applied (`treatments` pre-encoded, `[…]`).
    package func appendPurchase(
        counter: UInt32, frame: VisitFrame, orderID: [UInt8], totalMinor: Int64, productIDs: [UInt8],
        treatments: [UInt8], into out: inout [UInt8]
    ) {
        appendHead(.purchase, counter: counter, frame: frame, offset: 0, into: &out)
        out += ",\"orderID\":".utf8
        out += orderID
        out += ",\"totalMinor\":".utf8
        Self.appendDecimal(totalMinor, to: &out)
        out += ",\"currency\":\"EUR\",\"productIDs\":".utf8
        out += productIDs
        out += ",\"treatments\":".utf8
        out += treatments
        out.append(UInt8(ascii: "}"))
    }

    /// `<runTag>-<install>-<counter>`, unquoted.
    package func appendEventID(install: Int, counter: UInt32, into out: inout [UInt8]) {
        out += runTag
        out.append(UInt8(ascii: "-"))
        Self.appendDecimal(Int64(install), to: &out)
        out.append(UInt8(ascii: "-"))
        Self.appendDecimal(Int64(counter), to: &out)
    }

    private func appendHead(
        _ type: EventType, counter: UInt32, frame: VisitFrame, offset: Int64, into out: inout [UInt8]
    ) {
        out += ",{\"eventID\":\"".utf8
        appendEventID(install: frame.install, counter: counter, into: &out)
        out += "\",\"type\":\"".utf8
        out += type.rawValue.utf8
        out += "\",\"timestamp\":".utf8
        Self.appendDecimal(frame.timestamp &+ offset, to: &out)
        if !frame.customer.isEmpty {
            out += ",\"customerID\":".utf8
            out += frame.customer
        }
        out += frame.demo ? ",\"demo\":true".utf8 : ",\"demo\":false".utf8
        out += ",\"configRevision\":".utf8
        Self.appendDecimal(frame.revision, to: &out)
    }

    /// Decimal digits of `value`, without an intermediate string: JSONWriter's integer writing.
    package static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        JSONWriter.writeNumber(JSONNumber(value), to: &out)
    }
}
