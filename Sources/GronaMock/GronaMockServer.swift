/// The grona-mock engine: the Grona endpoints and the `/_mock` API on one HTTP server.
///
/// The `grona-mock` executable is a thin shell over this; tests start it in-process on port 0.
public final class GronaMockServer: Sendable {
    public let configuration: GronaMockConfiguration
    private let server: HTTPServer

    private init(configuration: GronaMockConfiguration, server: HTTPServer) {
        self.configuration = configuration
        self.server = server
    }

    /// Loads what the configuration names, binds and starts serving; returns once the socket is bound.
    public static func start(
        _ configuration: GronaMockConfiguration, logger: Logger = Logger()
    ) throws(StartupError) -> GronaMockServer {
        var router = Router(logger: logger)
        HealthRoutes.register(on: &router)
        if let directory = configuration.staticDirectory {
            let files = try StaticFiles.load(from: directory)
            files.register(on: &router)
        }
        do {
            let server = try HTTPServer.start(configuration: configuration.http, router: router, logger: logger)
            return GronaMockServer(configuration: configuration, server: server)
        } catch {
            let address = "\(configuration.http.host):\(configuration.http.port)"
            throw StartupError("cannot listen on \(address): \(error)")
        }
    }

    /// The base URL, with the real port.
    public var url: String { server.url }
    public var port: Int { server.port }

    /// Begins a graceful shutdown: no new connections, requests in flight answered. Returns at once.
    public func shutdown() { server.shutdown() }

    /// Blocks until the server has stopped.
    public func wait() { server.wait() }
}

/// Why the server could not start, as a sentence for the person who started it.
public struct StartupError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
