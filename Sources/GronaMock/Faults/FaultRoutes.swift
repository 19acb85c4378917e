import GronaMockHTTP
import GronaMockJSON

/// `/_mock/faults`: add, list and remove injected fault rules (contract §8). docs/faults.md has the API.
enum FaultRoutes {
    static func register(on router: inout Router, engine: FaultEngine) {
        router.on(.post, "/_mock/faults") { request in
            let document: JSONValue
            do {
                document = try JSONParser().parse(request.body)
            } catch {
                throw HTTPError(.badRequest, code: .malformedJson, message: "The body is not valid JSON: \(error).")
            }
            let listing = try engine.add(try FaultRule.parse(document))
            var response = HTTPResponse.json(JSONValue.object(listing).serialized(), status: .created)
            if let id = listing["id"]?.stringValue { response.headers.add("Location", "/_mock/faults/\(id)") }
            return response
        }
        router.on(.get, "/_mock/faults") { _ in
            let rules: JSONObject = ["faults": .array(try engine.listing().map(JSONValue.object))]
            return HTTPResponse.json(JSONValue.object(rules).serialized())
        }
        router.on(.delete, "/_mock/faults") { _ in
            HTTPResponse.json("{\"deleted\":\(try engine.clear())}")
        }
        router.on(.get, "/_mock/faults/{id}") { request in
            let id = request.pathParameters["id"] ?? ""
            guard let listing = try engine.listing(id: id) else { throw unknownFault(id) }
            return HTTPResponse.json(JSONValue.object(listing).serialized())
        }
        router.on(.delete, "/_mock/faults/{id}") { request in
            let id = request.pathParameters["id"] ?? ""
            guard try engine.remove(id: id) else { throw unknownFault(id) }
            return HTTPResponse.json("{\"deleted\":1}")
        }
    }

    private static func unknownFault(_ id: String) -> HTTPError {
        HTTPError(
            .notFound, code: .unknownFault,
            message: "No fault rule \(Quote.text(id)); GET /_mock/faults lists the rules there are.")
    }
}
