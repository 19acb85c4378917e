/// Where a value sits in a document, for validation messages in the contract's form
/// (`campaigns[2].placement: unknown placement "home_topp"`, CONTRACT.md §3 "Validation").
///
/// Rendering: keys joined with `.`, indexes in brackets (`config.settings.imageHosts[0]`). A key that is not a
/// plain ASCII identifier (a product id such as `sku-1`, a key with a dot, an empty key) renders in brackets as a
/// JSON string (`substitutes["sku-1"]`), so no key can be misread as two. The root renders as `$`, JSONPath's name
/// for it (RFC 9535 §2.2), so that a problem with the whole document still names a place; other paths render
/// without the `$.` prefix, as in the contract.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public private(set) var components: [Component]

    public static let root = JSONPath()

    public init(_ components: [Component] = []) {
        self.components = components
    }

    public var isRoot: Bool { components.isEmpty }

    public func appending(_ key: String) -> JSONPath {
        var path = self
        path.components.append(.key(key))
        return path
    }

    public func appending(_ index: Int) -> JSONPath {
        var path = self
        path.components.append(.index(index))
        return path
    }

    public func appending(_ component: Component) -> JSONPath {
        var path = self
        path.components.append(component)
        return path
    }

    public var description: String {
        guard !components.isEmpty else { return "$" }
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key) where JSONPath.isIdentifier(key):
                if !text.isEmpty { text += "." }
                text += key
            case .key(let key):
                text += "[\(JSONText.quoted(key))]"
            }
        }
        return text
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`: what reads unambiguously after a dot.
    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !isDigit(first) else { return false }
        return key.utf8.allSatisfy { byte in
            let lowercased = byte | 0x20
            return isDigit(byte) || byte == UInt8(ascii: "_") || (lowercased >= 0x61 && lowercased <= 0x7A)
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
