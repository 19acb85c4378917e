import Foundation

extension GronaMockClient {
    /// A conformance run as `GET /_mock/conformance` answers it (docs/conformance.md; the report's schema is
    /// docs/conformance/schemas/report.schema.json): updated as each test ends, `finished` once the last has.
    public struct ConformanceRun: Sendable, Hashable, Decodable {
        public struct Service: Sendable, Hashable, Decodable {
            public let name: String
            public let version: String
        }

        public struct Summary: Sendable, Hashable, Decodable {
            public let passed: Int
            public let failed: Int
            public let skipped: Int
        }

        /// One scenario's test.
        public struct Test: Sendable, Hashable, Decodable {
            public let name: String
            public let area: String
            public let scenario: String
            public let description: String
            public let durationMs: Int64
            public let outcome: Outcome
            /// Why it failed, one entry per expectation missed; empty unless `failed`.
            public let failures: [Failure]

            private enum CodingKeys: String, CodingKey {
                case name, area, scenario, description, durationMs, outcome, failures
            }

            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                name = try container.decode(String.self, forKey: .name)
                area = try container.decode(String.self, forKey: .area)
                scenario = try container.decode(String.self, forKey: .scenario)
                description = try container.decode(String.self, forKey: .description)
                durationMs = try container.decode(Int64.self, forKey: .durationMs)
                outcome = try container.decode(Outcome.self, forKey: .outcome)
                failures = try container.decodeIfPresent([Failure].self, forKey: .failures) ?? []
            }
        }

        /// A test's outcome; `other` keeps one a newer server reports.
        public enum Outcome: Sendable, Hashable, Decodable {
            case passed, failed, skipped
            case other(String)

            public init(from decoder: any Decoder) throws {
                let name = try decoder.singleValueContainer().decode(String.self)
                switch name {
                case "passed": self = .passed
                case "failed": self = .failed
                case "skipped": self = .skipped
                default: self = .other(name)
                }
            }
        }

        /// An expectation a test missed: where, what was expected and observed, and the evidence.
        public struct Failure: Sendable, Hashable, Decodable {
            public let place: String
            public let expected: String
            public let observed: String
            public let why: String?
            public let evidence: [String]
        }

        public let service: Service
        /// When the run began, Unix epoch milliseconds (the real clock).
        public let startedAt: Int64
        public let durationMs: Int64
        public let finished: Bool
        public let summary: Summary
        public let tests: [Test]
    }

    /// The last conformance run on this server (`grona-mock conformance`), or nil when none ran.
    public func conformanceRun() async throws -> ConformanceRun? {
        struct Answer: Decodable { let run: ConformanceRun? }
        return try decode(Answer.self, try await send("GET", "/_mock/conformance")).run
    }
}
