import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// Health tells an orchestrator the truth: each part, and 503 when events cannot be stored.
@Suite("Health, liveness and readiness", .serialized)
struct HealthTests {
    @Test("health and readiness report storage, workspaces and connections; liveness is plain")
    func parts() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace("broken", "{ not json")
        try fixture.withServer { server in
            for target in ["/_mock/health", "/_mock/health/ready"] {
                let response = try fetch(server.port, Control.request("GET", target))
                #expect(response.status == 200)
                #expect(response.header("Cache-Control") == "no-store")
                let body = try JSONParser().parse(response.body)
                #expect(body["status"]?.stringValue == "ok")
                #expect(body["storage"]?["writable"]?.boolValue == true)
                #expect(body["workspaces"]?["loaded"]?.int64Value == 1)
                let errors = body["workspaces"]?["errors"]?.arrayValue ?? []
                #expect(errors.count == 1)
                #expect(errors.first?["file"]?.stringValue?.hasSuffix("broken.json") == true)
                #expect(body["connections"]?["open"]?.int64Value ?? 0 >= 1)
                #expect(body["connections"]?["max"]?.int64Value == 10_000)
            }
            let live = try fetch(server.port, Control.request("GET", "/_mock/health/live"))
            #expect(live.status == 200)
            #expect(try JSONParser().parse(live.body)["status"]?.stringValue == "ok")
        }
    }

    @Test("while another process holds the database's write lock, readiness is 503; it recovers after")
    func storageRefusesWrites() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            // A second writer takes the lock, as a stuck backup or a broken disk would stop writes.
            let locker = Process()
            locker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            locker.arguments = [
                "python3", "-c",
                "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1],isolation_level=None)\nc.execute('BEGIN EXCLUSIVE')\n"
                    + "print('locked',flush=True)\nsys.stdin.readline()\nc.execute('ROLLBACK')",
                fixture.database.path,
            ]
            let input = Pipe()
            let output = Pipe()
            locker.standardInput = input
            locker.standardOutput = output
            try locker.run()
            var released = false
            // Releases the lock once: a second write to the closed pipe would raise SIGPIPE.
            let release = {
                guard !released else { return }
                released = true
                input.fileHandleForWriting.write(Data("\n".utf8))
                locker.waitUntilExit()
            }
            defer { release() }
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            #expect(line.hasPrefix("locked"))

            let ready = try fetch(server.port, Control.request("GET", "/_mock/health/ready"))
            #expect(ready.status == 503)
            let body = try JSONParser().parse(ready.body)
            #expect(body["status"]?.stringValue == "unavailable")
            #expect(body["storage"]?["writable"]?.boolValue == false)
            #expect(body["storage"]?["lastError"]?.stringValue?.isEmpty == false)
            // Liveness does not depend on storage: the process is fine, only writes are not.
            #expect(try fetch(server.port, Control.request("GET", "/_mock/health/live")).status == 200)

            release()
            #expect(
                try eventually(seconds: 15) {
                    try fetch(server.port, Control.request("GET", "/_mock/health")).status == 200
                })
            let events = try EventsAPI.post(server.port, events: [SampleEvents.placementEvent("exposure", id: "after")])
            #expect(events.status == 200)
        }
    }
}
