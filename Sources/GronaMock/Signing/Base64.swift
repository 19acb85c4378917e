/// Base64 (RFC 4648 §4) and base64url without padding (§5, as JWS uses it: RFC 7515 §2), both decoded
/// strictly: a wrong alphabet, padding in base64url, a stray character or non-zero spare bits is an error,
/// so one byte string has exactly one accepted encoding.
package enum Base64 {
    private static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Standard base64 with `=` padding (the SPKI strings of `configKeys`).
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        encode(bytes, alphabet: standardAlphabet, padding: true)
    }

    /// base64url without padding.
    package static func urlEncode(_ bytes: some Collection<UInt8>) -> String {
        encode(bytes, alphabet: urlAlphabet, padding: false)
    }

    /// Standard base64 with the padding it must have; nil for anything else.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var body = Substring(text)
        var padding = 0
        while body.last == "=" && padding < 2 {
            body.removeLast()
            padding += 1
        }
        guard (body.utf8.count + padding) % 4 == 0 else { return nil }
        guard let bytes = decode(body.utf8, alphabet: standardAlphabet) else { return nil }
        // Exactly as much padding as the last group needs.
        let expected = body.utf8.count % 4 == 0 ? 0 : 4 - body.utf8.count % 4
        return padding == expected ? bytes : nil
    }

    /// base64url without padding; nil for padding, other characters, a length of 1 mod 4, or spare bits.
    package static func urlDecode(_ text: some StringProtocol) -> [UInt8]? {
        decode(text.utf8, alphabet: urlAlphabet)
    }

    private static func encode(_ bytes: some Collection<UInt8>, alphabet: [UInt8], padding: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            if second != nil {
                output.append(alphabet[Int(group >> 6 & 63)])
            } else if padding {
                output.append(UInt8(ascii: "="))
            }
            if third != nil {
                output.append(alphabet[Int(group & 63)])
            } else if padding {
                output.append(UInt8(ascii: "="))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func decode(_ text: some Collection<UInt8>, alphabet: [UInt8]) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text {
            guard let value = sextet(character, alphabet: alphabet) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Spare bits of a final partial group must be zero (RFC 4648 §3.5), or two strings decode alike.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }

    private static func sextet(_ character: UInt8, alphabet: [UInt8]) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case alphabet[62]: 62
        case alphabet[63]: 63
        default: nil
        }
    }
}
