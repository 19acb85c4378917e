import Foundation

/// `grona-mock-embed-assets [--type NAME] <output.swift> <directory> <name>...`: writes the named files of the
/// directory as one Swift file, `NAME.sources` (`DashboardAssets` by default), each file's text a raw
/// multi-line string literal (a big array of bytes compiles slowly; a string literal does not). Run by the
/// `EmbedDashboardAssets` build-tool plugin, for the dashboard's files and the conformance catalogue.
///
/// Only UTF-8 text is taken, with LF line ends (a string literal would turn CRLF into LF). The literal's `#`
/// count is one more than the longest run of `#` after a `"` or a `\` in the file, so no file can end it or
/// start an escape in it.
var arguments = CommandLine.arguments.dropFirst()
var typeName = "DashboardAssets"
if arguments.first == "--type", arguments.count >= 2 {
    typeName = arguments[arguments.startIndex + 1]
    arguments = arguments.dropFirst(2)
}
guard arguments.count >= 2, let outputPath = arguments.first,
    typeName.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
else {
    FileHandle.standardError.write(
        Data("usage: grona-mock-embed-assets [--type NAME] <output.swift> <directory> <name>...\n".utf8))
    exit(64)
}
let directory = URL(fileURLWithPath: arguments[arguments.startIndex + 1])

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("grona-mock-embed-assets: \(message)\n".utf8))
    exit(65)
}

/// The longest run of `#` following a `"` or a `\` in `text`.
func longestHashRun(_ text: String) -> Int {
    var longest = 0
    var run: Int?
    for character in text.unicodeScalars {
        if character == "#", let current = run {
            run = current + 1
            longest = max(longest, current + 1)
        } else {
            run = character == "\"" || character == "\\" ? 0 : nil
        }
    }
    return longest
}

var generated = """
    // Generated at build time by grona-mock-embed-assets from \(directory.lastPathComponent): do not edit.

    extension \(typeName) {
        static let sources: [(name: String, text: String)] = [

    """
for name in arguments.dropFirst(2) {
    guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }) else {
        fail("\(name): an embedded file's name is letters, digits, '.', '-' and '_' only")
    }
    guard let data = try? Data(contentsOf: directory.appending(path: name)) else { fail("\(name): cannot read it") }
    guard let text = String(data: data, encoding: .utf8) else { fail("\(name): not UTF-8 text") }
    guard !text.contains("\r") else { fail("\(name): has CR characters; use LF line ends") }
    let hashes = String(repeating: "#", count: longestHashRun(text) + 1)
    generated += "        (\"\(name)\", \(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes)),\n"
}
generated += "    ]\n}\n"
do {
    try Data(generated.utf8).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
} catch {
    fail("cannot write \(outputPath): \(error)")
}
