import Foundation
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
