import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

/// The process metrics a load test's dashboard reads beside the server's own: they parse, carry the standard
/// names and types, and say what the process really has (compared with what /proc and the clock say here).
@Suite("GET /_mock/metrics: process metrics")
struct ProcessMetricsTests {
    @Test("CPU, resident memory, descriptors and start time are there, and agree with the process")
    func processMetricsAgreeWithTheProcess() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let response = try fetch(server.port, "GET /_mock/metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            let samples = try PrometheusText.parse(response.text)
            for type in ["# TYPE process_cpu_seconds_total counter", "# TYPE process_resident_memory_bytes gauge"] {
                #expect(response.text.contains(type))
            }
            let cpu = try #require(PrometheusText.value(samples, "process_cpu_seconds_total"))
            #expect(cpu > 0)
            let resident = try #require(PrometheusText.value(samples, "process_resident_memory_bytes"))
            // The test process holds the server: at least a megabyte, and less than this machine could hold.
            #expect(resident > 1_000_000 && resident < 64e9)
            let open = try #require(PrometheusText.value(samples, "process_open_fds"))
            let listed = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
            // Other tests open and close descriptors meanwhile: the two readings agree within that churn.
            #expect(open >= 3 && abs(open - Double(listed)) < 64)
            let start = try #require(PrometheusText.value(samples, "process_start_time_seconds"))
            let now = Date().timeIntervalSince1970
            #expect(start <= now + 1 && start > now - 24 * 3600)
            if let limit = PrometheusText.value(samples, "process_max_fds") { #expect(limit >= open) }
        }
    }

    /// The descriptor count lists /proc/self/fd. A scrape once crashed in CI copying a directory record past the
    /// end of readdir's buffer; whether that faults depends on where the buffer ends, so this does not reproduce
    /// it reliably: it reads many times, on two threads at once, and checks each count stays sane.
    @Test("reading the process metrics many times, on two threads at once, is safe and stays sane")
    func repeatedReads() async throws {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<500 {
                        let samples = ProcessMetrics.samples()
                        let open = samples.first { $0.name == "process_open_fds" }?.value ?? 0
                        #expect(open >= 3)
                    }
                }
            }
        }
    }
}
