/// Columns of text aligned for a terminal: the first columns left-aligned (names), the others right-aligned
/// (numbers), two spaces apart. Widths count characters, so `µs` takes one column as it does on screen.
struct TextTable {
    /// A header, when there is one, is the first row.
    var rows: [[String]] = []
    /// How many columns, from the first, hold names.
    var leftAlignedColumns = 1

    mutating func append(_ row: [String]) {
        rows.append(row)
    }

    /// The lines, each without trailing spaces.
    var lines: [String] {
        let all = rows
        let columns = all.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in
            all.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        return all.map { row in
            row.enumerated().map { column, cell in
                ReportFormat.pad(cell, widths[column], alignRight: column >= leftAlignedColumns)
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        guard let last = lastIndex(where: { $0 != " " }) else { return "" }
        return String(self[...last])
    }
}
