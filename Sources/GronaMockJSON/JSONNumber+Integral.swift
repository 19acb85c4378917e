/// Integers as JSON Schema has them: "a number with a zero fractional part" (JSON Schema Validation 2020-12
/// §6.1.1, which OpenAPI 3.1 uses), so `1041`, `1041.0`, `1.041e3` and `104100e-2` are the same integer, while
/// `1041.5` is not one. Decided from the number's decimal text, exactly: no Double is involved, so
/// `9007199254740993.0` is that integer and not its nearest Double.
extension JSONNumber {
    /// The decimal digits of a number's text with the position of its decimal point, read once.
    ///
    /// The value is `0.d₁d₂…dₙ × 10^pointPosition` with `d₁` not zero (or no digits at all for zero).
    /// Reading is linear in the text and allocates nothing but the digits' slice; the exponent saturates, so
    /// `1e99999999999999999999` cannot overflow anything.
    private struct Decimal {
        var isNegative: Bool
        /// The significant digits, without leading or trailing zeros (empty for zero).
        var digits: ArraySlice<UInt8>
        var pointPosition: Int

        /// Nil when the text is not RFC 8259 number text (it always is for a parsed or constructed number).
        init?(_ text: String) {
            let bytes = Array(text.utf8)
            var index = 0
            isNegative = bytes.first == UInt8(ascii: "-")
            if isNegative { index += 1 }
            var all: [UInt8] = []
            all.reserveCapacity(bytes.count)
            var integerDigits = 0
            while index < bytes.count, Self.isDigit(bytes[index]) {
                all.append(bytes[index])
                integerDigits += 1
                index += 1
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                while index < bytes.count, Self.isDigit(bytes[index]) {
                    all.append(bytes[index])
                    index += 1
                }
            }
            var exponent = 0
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                var negativeExponent = false
                if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                    negativeExponent = bytes[index] == UInt8(ascii: "-")
                    index += 1
                }
                // Past a billion the exact exponent changes no answer: saturate instead of overflowing.
                while index < bytes.count, Self.isDigit(bytes[index]) {
                    exponent = min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 1_000_000_000)
                    index += 1
                }
                if negativeExponent { exponent = -exponent }
            }
            guard index == bytes.count, !all.isEmpty else { return nil }
            let leadingZeros = all.prefix { $0 == UInt8(ascii: "0") }.count
            let trailingZeros = all.reversed().prefix { $0 == UInt8(ascii: "0") }.count
            if leadingZeros == all.count {
                digits = []
                pointPosition = 0
            } else {
                digits = all[leadingZeros..<(all.count - trailingZeros)]
                pointPosition = integerDigits - leadingZeros + exponent
            }
        }

        /// No digit lies after the decimal point.
        var isIntegral: Bool { digits.count <= pointPosition || digits.isEmpty }

        /// The integer's magnitude, when integral and within UInt64 (whatever the sign).
        var magnitude: UInt64? {
            guard isIntegral else { return nil }
            // UInt64.max has 20 digits; anything longer is out of range without computing it.
            guard pointPosition <= 20 else { return digits.isEmpty ? 0 : nil }
            var magnitude: UInt64 = 0
            for position in 0..<max(0, pointPosition) {
                let digit = position < digits.count ? digits[digits.startIndex + position] - UInt8(ascii: "0") : 0
                let (times10, overflowed) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, carried) = times10.addingReportingOverflow(UInt64(digit))
                guard !overflowed, !carried else { return nil }
                magnitude = sum
            }
            return magnitude
        }

        /// The integer, when integral and within Int64.
        var int64: Int64? {
            guard let magnitude else { return nil }
            if isNegative {
                return magnitude <= Int64.min.magnitude ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
            }
            return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
        }

        /// The integer, when integral, not negative (or zero) and within UInt64.
        var uint64: UInt64? {
            guard let magnitude, !isNegative || magnitude == 0 else { return nil }
            return magnitude
        }

        private static func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
    }

    /// True when the value has a zero fractional part, in range or not: `-0`, `1041.0`, `1e2` and `1e400` are
    /// integers, `1041.5` and `1e-2` are not. Validation tells "not an integer" from "out of range" by it.
    public var isInteger: Bool {
        switch storage {
        case .integer: true
        case .text(let text): Decimal(text)?.isIntegral ?? false
        }
    }

    /// The value when it is an integer (see `isInteger`) within Int64, however it is written; nil otherwise.
    public var int64: Int64? {
        switch storage {
        case .integer(let value): value
        case .text(let text): Decimal(text)?.int64
        }
    }

    /// The value when it is an integer from 0 to `UInt64.max`, however it is written; nil otherwise.
    public var uint64: UInt64? {
        switch storage {
        case .integer(let value): value >= 0 ? UInt64(value) : nil
        case .text(let text): Decimal(text)?.uint64
        }
    }

    /// True when the text is not the canonical decimal text of its integer value (`1041.0`, `1e3`, `-0`):
    /// what serves such a value again writes `JSONNumber(int64)` instead, as clients that read the field as a
    /// machine integer expect.
    public var isIntegerWrittenAsDecimal: Bool {
        if case .text = storage { int64 != nil } else { false }
    }
}
