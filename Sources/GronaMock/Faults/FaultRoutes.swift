import GronaMockHTTP
import GronaMockJSON

/// `/_mock/faults`: add, list and remove injected fault rules (contract §8). docs/faults.md has the API.
enum FaultRoutes {
    static func register(on router: inout Router, engine: GronaMockEngine) {
        router.on(.post, "/_mock/faults") { request in
            let document: JSONValue
            do {
                document = try JSONParser().parse(request.body)
            } catch {
                throw HTTPError(.badRequest, code: .malformedJson, message: "The body is not valid JSON: \(error).")
            }
            let listing = try engine.addFault(try FaultRule.parse(document))
            var response = HTTPResponse.json(JSONValue.object(listing).serialized(), status: .created)
            if let id = listing["id"]?.stringValue { response.headers.add("Location", "/_mock/faults/\(id)") }
            return response
        }
        router.on(.get, "/_mock/faults") { _ in
            let rules: JSONObject = ["faults": .array(try engine.faultRules().map(JSONValue.object))]
            return HTTPResponse.json(JSONValue.object(rules).serialized())
        }
        router.on(.delete, "/_mock/faults") { _ in
            HTTPResponse.json("{\"deleted\":\(try engine.clearFaults())}")
        }
        router.on(.get, "/_mock/faults/{id}") { request in
            HTTPResponse.json(
                JSONValue.object(try engine.faultRule(id: request.pathParameters["id"] ?? "")).serialized())
        }
        router.on(.delete, "/_mock/faults/{id}") { request in
            try engine.removeFault(id: request.pathParameters["id"] ?? "")
            return HTTPResponse.json("{\"deleted\":1}")
        }
    }
}
