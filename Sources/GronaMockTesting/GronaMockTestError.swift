import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON

/// Why a test-kit call failed: a sentence, and for a refused control call the API's status and error code.
public struct GronaMockTestError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// The HTTP status of a refused control call.
    public let status: Int?
    /// The API's stable error code (docs/errors.md), such as `invalid_fault`.
    public let code: String?

    init(_ description: String) {
        self.description = description
        status = nil
        code = nil
    }

    /// A key or id the kit was given that breaks its grammar: refused before any request, with the engine's
    /// own sentence and code (`invalid_identifier`), so a test learns of it where it wrote it.
    init(_ identifier: InvalidIdentifier) {
        description = "\(identifier)"
        status = nil
        code = "invalid_identifier"
    }

    /// `text` when it is a valid identifier of `kind` (the engine's one validator per kind).
    @discardableResult
    static func checked(_ text: String, _ kind: IdentifierKind, given field: String) throws(GronaMockTestError)
        -> String
    {
        do {
            return try kind.validated(text, given: field)
        } catch {
            throw GronaMockTestError(error)
        }
    }

    /// An engine operation refused, with the status and code the control API would have answered.
    init(_ error: HTTPError, operation: String) {
        status = error.status.code
        code = error.code.rawValue
        description = "\(operation) answered \(error.status.code) \(error.code.rawValue): \(error.message)"
    }

    init(response: HTTPResponse, request: String) {
        let error = (try? JSONParser().parse(response.body))?["error"]
        status = response.status.code
        code = error?["code"]?.stringValue
        let message = error?["message"]?.stringValue ?? String(decoding: response.body.prefix(300), as: UTF8.self)
        description = "\(request) answered \(response.status.code) \(code ?? ""): \(message)"
    }
}

/// The committed workspaces and test keys, bundled with the library.
enum BundledFiles {
    static func directory(_ name: String) throws -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil) else {
            throw GronaMockTestError("the bundled \(name) directory is missing from GronaMockTesting's resources")
        }
        return url
    }
}
