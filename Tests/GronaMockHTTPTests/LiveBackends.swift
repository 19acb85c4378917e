import GronaMockHTTP
import GronaMockPlatform
import GronaMockTestSupport

extension HTTPServer.Configuration {
    /// The live-test configuration (port 0, two loops, short timeouts) with the event loops on `backend`.
    static func on(_ backend: PollerBackend) -> HTTPServer.Configuration {
        var configuration = testServerConfiguration()
        configuration.pollerBackend = backend
        return configuration
    }
}
