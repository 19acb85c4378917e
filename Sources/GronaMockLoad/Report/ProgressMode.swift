#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a run shows its progress on standard error while it goes: one line rewritten in place on a terminal,
/// a plain line every few seconds in a CI log or a file (where carriage returns would pile up into one
/// unreadable line), or nothing with `--quiet`.
package enum ProgressMode: Sendable, Equatable {
    /// `\r`, ANSI erase line, then the status, every second; fitted to 80 columns so that it never wraps.
    case terminal
    /// A status line with a newline every 5 seconds.
    case plain
    case off

    /// The decision, from the facts: `--quiet` wins; a terminal that cannot erase a line (`TERM=dumb`, as in
    /// Emacs shells) gets plain lines.
    package init(quiet: Bool, standardErrorIsTerminal: Bool, term: String?) {
        if quiet {
            self = .off
        } else if standardErrorIsTerminal, term != "dumb" {
            self = .terminal
        } else {
            self = .plain
        }
    }

    /// The decision for this process: is standard error (file descriptor 2) a terminal?
    package static func current(quiet: Bool, environment: [String: String]) -> ProgressMode {
        ProgressMode(quiet: quiet, standardErrorIsTerminal: isatty(2) == 1, term: environment["TERM"])
    }

    /// How often the engine should write a line, in seconds; nil when it should not.
    package var intervalSeconds: Double? {
        switch self {
        case .terminal: 1
        case .plain: 5
        case .off: nil
        }
    }

    /// What to write before the final report so that it does not start after the progress line: on a
    /// terminal, erase the line; otherwise nothing.
    package var clearLine: String {
        self == .terminal ? ProgressLine.eraseLine : ""
    }
}
