#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File descriptors for the fleet's connections (one per request in flight, `--max-in-flight`), checked before
/// the run: a connection that cannot be opened for want of a descriptor (EMFILE) would count as a connect
/// failure, the service's fault in the report, when the limit is this process's. The soft limit is raised
/// towards the hard one when that is enough, as load generators do.
enum DescriptorBudget {
    /// Descriptors besides the connections: standard streams, the poller, `--verify`'s client, the JSON file.
    static let headroom: UInt64 = 64

    enum Plan: Equatable {
        case fits
        case raise(to: UInt64)
        case tooFew(limit: UInt64)
    }

    static func plan(connections: Int, soft: UInt64, hard: UInt64) -> Plan {
        let (needed, overflow) = UInt64(clamping: max(0, connections)).addingReportingOverflow(headroom)
        if overflow { return .tooFew(limit: hard) }
        if needed <= soft { return .fits }
        return needed <= hard ? .raise(to: needed) : .tooFew(limit: hard)
    }

    /// Makes room for `connections`, or says why the run cannot be made.
    static func ensure(connections: Int) throws(LoadRunError) {
        var limit = rlimit()
        guard getrlimit(resourceNoFile, &limit) == 0 else { return }
        let soft = UInt64(limit.rlim_cur)
        let hard = UInt64(limit.rlim_max)
        switch plan(connections: connections, soft: soft, hard: hard) {
        case .fits:
            return
        case .raise(let needed):
            limit.rlim_cur = rlim_t(needed)
            guard setrlimit(resourceNoFile, &limit) == 0 else { throw shortage(connections, soft) }
        case .tooFew(let hard):
            throw shortage(connections, hard)
        }
    }

    private static func shortage(_ connections: Int, _ limit: UInt64) -> LoadRunError {
        LoadRunError(
            "--max-in-flight \(connections) needs \(connections) connections and \(headroom) more file descriptors; "
                + "this process may open \(limit) (raise it with ulimit -n, or lower --max-in-flight)")
    }

    #if os(Linux)
    private static let resourceNoFile = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceNoFile = RLIMIT_NOFILE
    #endif
}
