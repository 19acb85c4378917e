extension JSONWriter {
    /// Appends `text`, a JSON value that `JSONParser` accepted, exactly as `write` would write the value it
    /// parses to, without building that value.
    ///
    /// Accepted text differs from its compact form only between tokens and inside strings with escapes: the
    /// parser keeps an integer's digits and any other number's text, and a string without a backslash holds no
    /// byte `writeString` escapes (RFC 8259 §7: no raw control character, quote or backslash). So whitespace
    /// outside strings is dropped, everything else is copied in runs, and only a string with an escape is
    /// decoded and written again. An events batch's events are stored this way: writing each one again from its
    /// parsed value was a seventh of the event loops' time (issue 14).
    ///
    /// For text the parser refused the output is unspecified, but nothing is read outside `text`.
    public static func writeCompacting(_ text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var index = 0
        var runStart = 0
        while index < text.count {
            switch text[index] {
            case .space, .tab, .lineFeed, .carriageReturn:
                output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
                index += 1
                runStart = index
            case .quote:
                let (end, hasEscape) = stringEnd(in: text, from: index)
                if hasEscape {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
                    let string = UnsafeBufferPointer(rebasing: text[index..<end])
                    var reader = JSONReader(string, maximumDepth: 0)
                    if let decoded = try? reader.parseString() {
                        writeString(decoded, to: &output)
                    } else {
                        output.append(contentsOf: string)
                    }
                    runStart = end
                }
                index = end
            default:
                index += 1
            }
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<text.count]))
    }

    /// `writeCompacting` of `text[range]` into a new array.
    public static func compacted(_ text: [UInt8], range: Range<Int>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(range.count)
        text.withUnsafeBufferPointer { buffer in
            let clamped = range.clamped(to: 0..<buffer.count)
            writeCompacting(UnsafeBufferPointer(rebasing: buffer[clamped]), to: &output)
        }
        return output
    }

    /// Past the closing quote of the string whose opening quote is at `start` (the end of `text` when it has
    /// none), and whether the string holds an escape.
    private static func stringEnd(
        in text: UnsafeBufferPointer<UInt8>, from start: Int
    ) -> (end: Int, hasEscape: Bool) {
        var index = start + 1
        var hasEscape = false
        while index < text.count {
            switch text[index] {
            case .quote:
                return (index + 1, hasEscape)
            case .backslash:
                hasEscape = true
                index += 2
            default:
                index += 1
            }
        }
        return (text.count, hasEscape)
    }
}
