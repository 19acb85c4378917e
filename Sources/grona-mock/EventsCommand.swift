import GronaMock
import GronaMockPlatform
import GronaMockSQLite

/// `grona-mock events export|summary`: what the SDK sent, read from the database file, whether or not a
/// server is running on it.
enum EventsCommand {
    static let usage = """
        USAGE: grona-mock events export [--format ndjson|csv] [filters] [--db FILE | --store URL]
               grona-mock events summary --workspace KEY [--db FILE | --store URL]

        export   Writes every matching event, oldest first: one JSON object a line (ndjson, with the
                 server's fields receivedAt and correctedTimestamp), or CSV of the indexed columns.
        summary  Per campaign, variant and arm: the count of each event type, and purchases and revenue
                 attributed through claimed treatments; demo events apart.

        FILTERS: --workspace KEY --type T --campaignID ID --variantID ID --arm A --placement P
                 --installID ID --customerID ID --visitID ID --since MS --until MS (event timestamps,
                 Unix epoch milliseconds)

        OPTIONS:
        \(ParsedOptions.help(for: [CommonOptions.database, CommonOptions.store, format]))
        """

    private static let format = OptionSpec.value("format", "ndjson|csv", default: "ndjson", help: "export's format.")
    private static let filters = [
        "workspace", "type", "campaignID", "variantID", "arm", "placement", "installID",
        "customerID", "visitID", "since", "until",
    ].map { OptionSpec.value($0, "VALUE", help: "Filter.") }

    static func run(_ arguments: [String], environment: [String: String]) -> ExitCode {
        let specs = [CommonOptions.database, CommonOptions.store, format] + filters
        return CommonOptions.dispatch(
            arguments, command: "events", usage: usage,
            subcommands: [
                .init(name: "export", specs: specs) { options in withStore(options, export) },
                .init(name: "summary", specs: specs) { options in withStore(options, summary) },
            ], environment: environment)
    }

    /// Opens the database file read-side for a subcommand; it must exist (an empty new file helps no one).
    private static func withStore(_ options: ParsedOptions, _ action: (ParsedOptions, EventStore) -> ExitCode)
        -> ExitCode
    {
        let path = options.value("db") ?? CommonOptions.defaultDatabase
        guard options.value("store") != nil || (path != ":memory:" && FileSystem.exists(path)) else {
            Console.error("grona-mock events: no database at \(path); name the server's file with --db")
            return .failure
        }
        guard let storage = CommonOptions.openStorage(options, for: "events") else { return .failure }
        return action(options, EventStore(readingFrom: storage))
    }

    private static func export(_ options: ParsedOptions, _ store: EventStore) -> ExitCode {
        let parameters = filters.compactMap { spec in options.value(spec.name).map { (name: spec.name, value: $0) } }
        let filter: EventFilter
        do {
            filter = try EventFilter(parameters: parameters)
        } catch {
            Console.error("grona-mock events export: \(error.message)")
            return .usage
        }
        guard let format = options.value("format").flatMap(EventExport.Format.init(rawValue:)) else {
            Console.error(
                "grona-mock events export: --format must be ndjson or csv, not \"\(options.value("format") ?? "")\"")
            return .usage
        }
        // The server's export, page by page: memory is one page whatever the database holds.
        do {
            var export = try EventExport(storage: store.storage, filter: filter, format: format)
            while let piece = try export.next() {
                guard !piece.isEmpty else { continue }
                Console.out(String(decoding: piece.dropLast(), as: UTF8.self))
            }
            return .success
        } catch {
            Console.error("grona-mock events export: \(error)")
            return .failure
        }
    }

    private static func summary(_ options: ParsedOptions, _ store: EventStore) -> ExitCode {
        guard let workspace = options.value("workspace") else {
            Console.error("grona-mock events summary: name the workspace with --workspace KEY")
            return .usage
        }
        do {
            let summary = try store.summary(workspace: workspace)
            Console.out(String(decoding: summary.prettySerialized(), as: UTF8.self))
            return .success
        } catch {
            Console.error("grona-mock events summary: \(error)")
            return .failure
        }
    }
}
