#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serialises response heads (RFC 9112 §4 and §6.2), with a `Date` value formatted once a second.
///
/// One per event loop, so the cached date needs no lock.
struct ResponseEncoder {
    private var cachedSecond = -1
    private var cachedDate: [UInt8] = []

    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The status line and header section for `response`. For HEAD, Content-Length still describes the body
    /// a GET would get; statuses that carry no content (1xx, 204, 304) get none.
    mutating func head(for response: HTTPResponse, keepAlive: Bool, http10: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + response.headers.count * 48)
        bytes += "HTTP/1.1 ".utf8
        bytes += String(response.status.code).utf8
        bytes.append(0x20)
        bytes += response.status.reason.utf8
        bytes += "\r\nDate: ".utf8
        bytes += date()
        if response.stream != nil {
            // HTTP/1.0 knows no chunked coding: its body ends when the connection closes.
            if !http10 && !response.status.forbidsBody { bytes += "\r\nTransfer-Encoding: chunked".utf8 }
        } else if !response.status.forbidsBody {
            bytes += "\r\nContent-Length: ".utf8
            bytes += String(response.body.count).utf8
        }
        if !keepAlive {
            bytes += "\r\nConnection: close".utf8
        } else if http10 {
            bytes += "\r\nConnection: keep-alive".utf8
        }
        for field in response.headers {
            bytes += "\r\n".utf8
            appendSanitised(field.name, to: &bytes)
            bytes += ": ".utf8
            appendSanitised(field.value, to: &bytes)
        }
        bytes += "\r\n\r\n".utf8
        return bytes
    }

    /// Drops CR and LF so that no value a handler sets can split the header section (response splitting).
    /// Copied whole when there is none to drop, which is every value but a handler's mistake: a byte at a time,
    /// this was the encoder's main cost.
    private func appendSanitised(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            if utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
                for byte in utf8 where byte != 0x0D && byte != 0x0A { bytes.append(byte) }
            } else {
                bytes.append(contentsOf: utf8)
            }
        }
    }

    /// The IMF-fixdate of now (RFC 9110 §5.6.7), recomputed when the second changes.
    private mutating func date() -> [UInt8] {
        var now = time(nil)
        guard now != cachedSecond else { return cachedDate }
        var parts = tm()
        gmtime_r(&now, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let text =
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        cachedSecond = now
        cachedDate = Array(text.utf8)
        return cachedDate
    }
}
