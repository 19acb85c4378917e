import Foundation
@_exported import GronaMockHTTP
import GronaMockPlatform

/// Runs `body` against an HTTP server on 127.0.0.1, port 0, and always shuts it down, pass or fail.
package func withLiveServer<T>(
    _ configuration: HTTPServer.Configuration = testServerConfiguration(),
    router: Router = TestRoutes.router(), logger: Logger = .silent,
    _ body: (HTTPServer) throws -> T
) throws -> T {
    let server = try HTTPServer.start(configuration: configuration, router: router, logger: logger)
    do {
        let result = try body(server)
        server.shutdown()
        server.wait()
        return result
    } catch {
        server.shutdown()
        server.wait()
        throw error
    }
}

/// Port 0, two loops, short timeouts so that timeout tests finish quickly.
package func testServerConfiguration() -> HTTPServer.Configuration {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, eventLoops: 2)
    configuration.headerTimeout = .milliseconds(400)
    configuration.idleTimeout = .milliseconds(600)
    configuration.shutdownTimeout = .seconds(3)
    return configuration
}

/// Holds a handler until the test opens it, so a test can act while a request is known to be in flight
/// instead of guessing with sleeps.
package final class Gate: Sendable {
    package init() {}

    private let entered = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)

    /// Called by the handler: reports that it runs, then waits for `open`.
    package func pass() {
        entered.signal()
        opened.wait()
    }

    /// Waits until a handler is inside the gate (false after `seconds`). Blocking on purpose: a test that
    /// awaited here would need a free cooperative thread to resume, which other tests' blocking socket
    /// reads can hold on a 2-core machine.
    package func waitForEntry(seconds: Double = 10) -> Bool {
        entered.wait(timeout: .now() + seconds) == .success
    }

    package func open() { opened.signal() }
}

/// Routes for exercising the server core.
package enum TestRoutes {
    package static func router(gate: Gate = Gate()) -> Router {
        var router = Router()
        router.on(.get, "/hello") { _ in HTTPResponse.json("{\"hello\":\"world\"}") }
        router.on(.get, "/items/{id}") { request in
            HTTPResponse.json("{\"id\":\(request.pathParameters["id"] ?? "null")}")
        }
        router.on(.post, "/echo", bodyLimit: 1024) { request in
            HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: request.body)
        }
        // Answers from another thread after `ms` milliseconds, like the events endpoint after its commit.
        router.on(.get, "/later/{ms}") { request, responder in
            let delay = Int(request.pathParameters["ms"] ?? "0") ?? 0
            let id = request.query("id") ?? ""
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) {
                responder.send(HTTPResponse.json("{\"id\":\"\(id)\"}"))
            }
        }
        // Answers from another thread once the test opens the gate.
        router.on(.get, "/gate") { _, responder in
            Thread.detachNewThread {
                gate.pass()
                responder.send(HTTPResponse.json("{\"gate\":\"passed\"}"))
            }
        }
        return router
    }
}
