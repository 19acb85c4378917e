import GronaMockJSON

/// The harness's side of the test-service protocol (docs/conformance/service-protocol.md): what the service
/// is and can do, creating a client, commands, closing.
package struct ServiceClient: Sendable {
    /// `GET /`.
    package struct Description: Sendable {
        package let name: String
        package let version: String
        package let protocolVersion: Int
        package let capabilities: Set<String>

        package init(name: String, version: String, protocolVersion: Int, capabilities: Set<String>) {
            self.name = name
            self.version = version
            self.protocolVersion = protocolVersion
            self.capabilities = capabilities
        }
    }

    /// A command's outcome: its result (200), or the service's refusal (409) with its sentence.
    package enum CommandOutcome: Sendable {
        case result(JSONValue)
        case refused(String)
    }

    /// The service answered something the protocol does not allow, or could not be asked.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    let url: String
    let timeoutSeconds: Int

    /// nil when `url` is not `http://HOST:PORT`.
    package init?(url: String, timeoutSeconds: Int = 30) {
        guard ServiceExchange(url: url, timeoutSeconds: timeoutSeconds) != nil else { return nil }
        self.url = url
        self.timeoutSeconds = timeoutSeconds
    }

    private var exchange: ServiceExchange? { ServiceExchange(url: url, timeoutSeconds: timeoutSeconds) }

    private func call(_ method: String, _ path: String, _ body: JSONValue? = nil) throws(Failure)
        -> ServiceExchange.Answer
    {
        guard let exchange else { throw Failure(description: "\(url) is not an http://HOST:PORT URL") }
        do {
            return try exchange.request(method, path, json: body)
        } catch {
            throw Failure(description: error.description)
        }
    }

    package func describe() throws(Failure) -> Description {
        let answer = try call("GET", "/")
        guard answer.status == 200, let body = answer.json?.objectValue else {
            throw Failure(description: "GET / answered \(answer.status): \(answer.text)")
        }
        guard let capabilities = body["capabilities"]?.arrayValue?.compactMap(\.stringValue) else {
            throw Failure(description: "GET / has no \"capabilities\" array: \(answer.text)")
        }
        return Description(
            name: body["name"]?.stringValue ?? "unnamed", version: body["version"]?.stringValue ?? "?",
            protocolVersion: body["protocol"]?.int64Value.map(Int.init) ?? 0, capabilities: Set(capabilities))
    }

    /// `POST /clients`: the new client's id.
    package func createClient(_ configuration: JSONValue) throws(Failure) -> String {
        let answer = try call("POST", "/clients", configuration)
        guard answer.status == 201 || answer.status == 200 else {
            throw Failure(description: "POST /clients answered \(answer.status): \(answer.text)")
        }
        guard let id = answer.json?["id"]?.stringValue, !id.isEmpty,
            id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "/" && $0 != "?" && $0 != "#" })
        else {
            throw Failure(description: "POST /clients answered no usable {\"id\"}: \(answer.text)")
        }
        return id
    }

    /// `POST /clients/{id}`: 200 with the result, 409 refused; anything else fails the scenario.
    package func command(_ id: String, _ body: JSONObject) throws(Failure) -> CommandOutcome {
        let name = body["command"]?.stringValue ?? "?"
        let answer = try call("POST", "/clients/\(id)", .object(body))
        switch answer.status {
        case 200:
            guard let json = answer.json ?? (answer.body.isEmpty ? .object([:]) : nil) else {
                throw Failure(description: "\(name) answered 200 with a body that is not JSON: \(answer.text)")
            }
            return .result(json)
        case 409:
            return .refused(answer.json?["error"]?.stringValue ?? answer.text)
        default:
            throw Failure(description: "\(name) answered \(answer.status): \(answer.text)")
        }
    }

    /// `DELETE /clients/{id}`; a failure here fails the scenario too (the client may go on sending).
    package func close(_ id: String) throws(Failure) {
        let answer = try call("DELETE", "/clients/\(id)")
        guard answer.status == 204 || answer.status == 200 else {
            throw Failure(description: "DELETE /clients/\(id) answered \(answer.status): \(answer.text)")
        }
    }
}
