import GronaMockJSON

/// CSV cells for `events export --format csv` (RFC 4180), safe to open in a spreadsheet.
///
/// Event fields come from devices, so a string such as `=HYPERLINK(…)` must not run as a formula when an
/// analyst opens the export. Following the OWASP guidance on CSV injection, a text cell that begins with
/// `=`, `+`, `-`, `@`, a tab, a carriage return or NUL is prefixed with `'` and quoted; every quote inside
/// a quoted cell is doubled. Numbers and booleans are written as they are: they cannot hold a formula.
package enum EventCSV {
    /// The scalars a spreadsheet reads as the start of a formula (or that hide one).
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r", "\n", "\u{0}"]

    /// One text cell, neutralised and quoted as needed. Decided on Unicode scalars, not characters: a quote
    /// or `=` followed by a combining mark is one Character to Swift but still a quote or `=` to a spreadsheet.
    package static func textCell(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let neutralised = scalars.first.map(formulaStarts.contains) == true
        let needsQuotes = neutralised || scalars.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
        guard needsQuotes else { return text }
        var cell = String.UnicodeScalarView()
        cell.append("\"")
        if neutralised { cell.append("'") }
        for scalar in scalars {
            cell.append(scalar)
            if scalar == "\"" { cell.append("\"") }
        }
        cell.append("\"")
        return String(cell)
    }

    /// One row of `columns` from an event's JSON; a missing or structured value is an empty cell.
    package static func row(_ event: JSONValue, columns: [String]) -> String {
        columns.map { column in
            switch event[column] {
            case .string(let value)?: textCell(value)
            case .number(let value)?: value.text
            case .bool(let value)?: value ? "true" : "false"
            default: ""
            }
        }.joined(separator: ",")
    }
}
