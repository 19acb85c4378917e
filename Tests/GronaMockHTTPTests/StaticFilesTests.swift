import Foundation
import GronaMockHTTP
import GronaMockTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Static files on a toy route, `/static/{name}`: read once, served from memory, never from outside their
/// directory.
@Suite("Static files")
struct StaticFilesTests {
    /// A fresh directory for one test, removed at the end.
    final class Folder {
        let url: URL
        var path: String { url.path }

        init() throws {
            // Resolved, so that paths in errors (which name real paths) compare equal on macOS too.
            url = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
                .appendingPathComponent("grona-static-\(UUID())")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: url) }

        func write(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: url.appendingPathComponent(name))
        }

        func link(_ name: String, to destination: String) throws {
            try FileManager.default.createSymbolicLink(
                atPath: url.appendingPathComponent(name).path, withDestinationPath: destination)
        }
    }

    static func serve<T>(_ files: StaticFiles, _ body: (HTTPServer) throws -> T) throws -> T {
        var router = Router()
        files.register(on: &router, at: "/static/{name}")
        return try withLiveServer(router: router, body)
    }

    @Test("a file is served byte for byte with its content type; another name is 404")
    func servesFiles() throws {
        let folder = try Folder()
        let image = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try folder.write("photo.PNG", image)
        try folder.write("body.json", Array("{\"a\":1}".utf8))
        try folder.write("notes", Array("plain".utf8))
        try folder.write(".hidden.txt", Array("secret".utf8))
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("nested"), withIntermediateDirectories: true)
        let files = try StaticFiles.load(from: folder.path)
        #expect(files.files.keys.sorted() == ["body.json", "notes", "photo.PNG"])
        try Self.serve(files) { server in
            let client = try RawClient(port: server.port)
            try client.send("GET /static/photo.PNG HTTP/1.1\r\nHost: x\r\n\r\n")
            let photo = try client.readResponse()
            #expect(photo.status == 200)
            #expect(photo.header("Content-Type") == "image/png")
            #expect(photo.header("Cache-Control") == "no-cache")
            #expect(photo.body == image)
            try client.send("GET /static/body.json HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().header("Content-Type") == "application/json")
            try client.send("HEAD /static/notes HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try client.readResponse(forHead: true)
            #expect(head.header("Content-Type") == "application/octet-stream")
            #expect(head.header("Content-Length") == "5")
            for missing in ["missing.png", ".hidden.txt", "nested"] {
                try client.send("GET /static/\(missing) HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 404, "\(missing)")
                #expect(response.text.contains("\"code\":\"not_found\""))
            }
        }
    }

    @Test("nothing outside the directory is served: not through .., not through a symbolic link")
    func staysInside() throws {
        let parent = try Folder()
        try parent.write("secret.pem", Array("-----BEGIN PRIVATE KEY-----".utf8))
        let inside = parent.url.appendingPathComponent("static")
        try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: inside.appendingPathComponent("inside.txt"))
        for (name, destination) in [
            ("leak.txt", parent.url.appendingPathComponent("secret.pem").path), ("dots.txt", "../secret.pem"),
            ("dangling.txt", "nowhere.txt"), ("alias.txt", "inside.txt"),
        ] {
            try FileManager.default.createSymbolicLink(
                atPath: inside.appendingPathComponent(name).path, withDestinationPath: destination)
        }
        // Loaded through a path with `..` and a trailing slash: containment compares real paths.
        let files = try StaticFiles.load(from: inside.path + "/../static/")
        #expect(files.files.keys.sorted() == ["alias.txt", "inside.txt"])
        #expect(files.outside == ["dangling.txt", "dots.txt", "leak.txt"])
        try Self.serve(files) { server in
            for target in [
                "leak.txt", "dots.txt", "dangling.txt", "..%2Fsecret.pem", "%2E%2E%2Fsecret.pem", "../secret.pem",
            ] {
                let response = try fetch(server.port, "GET /static/\(target) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(response.status == 404, "\(target)")
                #expect(!response.text.contains("PRIVATE KEY"))
            }
            let alias = try fetch(server.port, "GET /static/alias.txt HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(alias.text == "inside")
        }
    }

    @Test("a missing directory, or a file named as one, is a clear error naming it")
    func notADirectory() throws {
        let folder = try Folder()
        let missing = folder.path + "/absent"
        #expect {
            _ = try StaticFiles.load(from: missing)
        } throws: { error in
            "\(error)" == "\(missing) is not a directory (No such file or directory)"
        }
        try folder.write("file.txt", [1])
        let file = folder.path + "/file.txt"
        #expect(throws: StaticFilesError.notADirectory(file, reason: nil)) { try StaticFiles.load(from: file) }
        #expect("\(StaticFilesError.notADirectory(file, reason: nil))" == "\(file) is not a directory")
    }

    @Test("a FIFO stops the load instead of blocking it; so does a file over the size limit")
    func unservableFiles() throws {
        let fifo = try Folder()
        let pipe = fifo.path + "/pipe.json"
        #expect(mkfifo(pipe, 0o644) == 0)
        #expect(throws: StaticFilesError.notARegularFile(pipe)) { try StaticFiles.load(from: fifo.path) }

        // Sparse: one byte over the limit without writing 16 MiB.
        let large = try Folder()
        try large.write("huge.bin", [])
        let huge = large.path + "/huge.bin"
        #expect(truncate(huge, off_t(StaticFiles.maxFileBytes + 1)) == 0)
        #expect {
            _ = try StaticFiles.load(from: large.path)
        } throws: { error in
            "\(error)" == "\(huge) is larger than \(StaticFiles.maxFileBytes) bytes"
        }
    }
}
