import Foundation

extension GronaMockClient {
    /// Which stored events to read or wait for; every field set must match.
    public struct EventFilter: Sendable, Hashable, CustomStringConvertible {
        /// An event type's wire name (`exposure`, `purchase`, ...).
        public var type: String?
        public var campaignID: String?
        public var variantID: String?
        public var arm: String?
        public var placement: String?
        public var installID: String?
        public var customerID: String?
        public var visitID: String?

        public init(
            type: String? = nil, campaignID: String? = nil, variantID: String? = nil, arm: String? = nil,
            placement: String? = nil, installID: String? = nil, customerID: String? = nil, visitID: String? = nil
        ) {
            self.type = type
            self.campaignID = campaignID
            self.variantID = variantID
            self.arm = arm
            self.placement = placement
            self.installID = installID
            self.customerID = customerID
            self.visitID = visitID
        }

        package func queryItems(workspace: String) -> [(String, String)] {
            let fields: [(String, String?)] = [
                ("workspace", workspace), ("type", type), ("campaignID", campaignID), ("variantID", variantID),
                ("arm", arm), ("placement", placement), ("installID", installID), ("customerID", customerID),
                ("visitID", visitID),
            ]
            return fields.compactMap { name, value in value.map { (name, $0) } }
        }

        public var description: String {
            let set = queryItems(workspace: "").dropFirst().map { "\($0.0)=\($0.1)" }
            return set.isEmpty ? "(any)" : set.joined(separator: " ")
        }
    }

    /// The filter as URL query items, for the events list and the wait.
    func urlQueryItems(_ filter: EventFilter, workspace: String) -> [URLQueryItem] {
        filter.queryItems(workspace: workspace).map { URLQueryItem(name: $0.0, value: $0.1) }
    }
}
