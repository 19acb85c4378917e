import Foundation

/// A database file in a directory of its own, removed when the value is released.
final class TemporaryDatabase {
    let directory: URL
    var path: String { directory.appendingPathComponent("grona-mock.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("grona-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}
