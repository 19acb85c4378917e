/// Reads an IMF-fixdate (RFC 9110 §5.6.7), `Sun, 06 Nov 1994 08:49:37 GMT`, as Unix seconds: the form a
/// `Retry-After` date takes. Exactly 29 bytes, every field checked, so that nothing a server sends can trap.
enum IMFFixdate {
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func seconds(_ value: some Collection<UInt8>) -> Int64? {
        let bytes = Array(value)
        guard bytes.count == 29, days.contains(text(bytes, 0..<3)), text(bytes, 3..<5) == ", ", bytes[7] == 0x20,
            bytes[11] == 0x20, bytes[16] == 0x20, bytes[19] == 0x3A, bytes[22] == 0x3A, text(bytes, 25..<29) == " GMT",
            let day = number(bytes, 5..<7), let monthIndex = months.firstIndex(of: text(bytes, 8..<11)),
            let year = number(bytes, 12..<16), let hour = number(bytes, 17..<19), let minute = number(bytes, 20..<22),
            let second = number(bytes, 23..<25), hour < 24, minute < 60, second < 61,
            (1...daysIn(month: monthIndex + 1, year: year)).contains(day)
        else { return nil }
        let days = daysFromCivil(year: year, month: monthIndex + 1, day: day)
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    private static func text(_ bytes: [UInt8], _ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        HTTPResponseHead.decimal(bytes[range])
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
