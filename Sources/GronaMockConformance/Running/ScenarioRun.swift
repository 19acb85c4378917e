import Dispatch
import GronaMock
import GronaMockJSON
import GronaMockPlatform

/// What every test of a run shares: the engine of the mock the SDK talks to, its URL, the test service, and
/// the runner's listener.
struct RunContext {
    let engine: GronaMockEngine
    /// The mock's base URL as the SDK reaches it.
    let mockURL: String
    let service: ServiceClient
    let capabilities: Set<String>
    let recorder: TrafficRecorder
}

/// One scenario, run: its workspace served under a fresh key, the clocks set, the client created, the steps
/// and triggers run, the expectations checked, and everything it left on the mock removed.
struct ScenarioRun {
    let scenario: Scenario
    let context: RunContext
    /// The test's number in the run, for its workspace key.
    let number: Int

    private var engine: GronaMockEngine { context.engine }

    func run() -> TestResult {
        let started = MonotonicClock.now()
        let missing = scenario.requires.map(\.rawValue).filter { !context.capabilities.contains($0) }
        guard missing.isEmpty else {
            return result(.skipped(missing: missing), log: [], started: started)
        }
        let key = "conf-\(number)-\(Self.randomHex(6))"
        let secret = "sk_conf_\(Self.randomHex(24))"
        var state = RunState(key: key, secret: secret)
        defer { cleanUp(state) }
        let setUp = prepare(&state)
        guard let traffic = state.traffic else {
            return result(.failed(setUp), log: [], started: started)
        }
        var explanations = setUp
        if explanations.isEmpty { explanations += drive(&state, traffic) }
        context.recorder.record(nil)
        explanations += traffic.takeFaultErrors().map {
            Explanation(place: "triggers", expected: "the trigger's fault to be added", observed: $0)
        }
        return result(explanations.isEmpty ? .passed : .failed(explanations), log: traffic.log, started: started)
    }

    /// What a test holds while it runs, for the clean-up.
    struct RunState {
        let key: String
        let secret: String
        var otherKey: String?
        var traffic: TestTraffic?
        var clientID: String?
        var bundle: JSONValue = .null
    }

    // MARK: - Setting up

    /// Serves the workspace (and the bundle's), freezes the clock, starts listening and adds the setup
    /// faults. Problems here are the scenario's or the mock's, not the SDK's, and stop the test.
    private func prepare(_ state: inout RunState) -> [Explanation] {
        let startMs = scenario.client.startMs
        do {
            _ = try engine.changeClock(ClockChange(freeze: true, freezeAt: startMs &+ scenario.clockSkewMs))
        } catch {
            return [setupFailure("the mock's clock frozen at the start", "\(error)")]
        }
        let base = ScenarioWorkspace.base(key: state.key, secret: state.secret)
        let document = ScenarioWorkspace.pinned(
            scenario.workspace.map { ScenarioWorkspace.merge(base, $0) } ?? base, key: state.key, secret: state.secret)
        var aheadOfServed: (payload: JSONValue, kids: [String], by: Int64)?
        if case .other(let patch, let otherWorkspace, let tampered, let ahead) = scenario.client.bundle {
            let bundleKey = otherWorkspace ? state.key + "-other" : state.key
            if otherWorkspace { state.otherKey = bundleKey }
            // A secret key picks one workspace (contract §6): the other workspace needs its own.
            let bundleSecret = otherWorkspace ? state.secret + "_other" : state.secret
            let bundleBase = otherWorkspace ? ScenarioWorkspace.base(key: bundleKey, secret: bundleSecret) : document
            let bundleDocument = ScenarioWorkspace.pinned(
                ScenarioWorkspace.merge(bundleBase, patch), key: bundleKey, secret: bundleSecret)
            do {
                _ = try engine.putWorkspace(bundleKey, document: bundleDocument, allowInvalid: true)
                guard let entry = engine.registry.entry(for: bundleKey) else {
                    return [setupFailure("the bundled configuration signed", "nothing is served under \(bundleKey)")]
                }
                let signed = entry.configuration.document
                let bytes = tampered ? Self.flippingSignatures(signed) : signed
                state.bundle = .string(String(decoding: bytes, as: UTF8.self))
                if let ahead, let payload = Self.payload(of: signed) {
                    aheadOfServed = (payload, entry.workspace.configKeyIDs, ahead)
                }
            } catch {
                return [setupFailure("the bundled configuration's workspace served", "\(error)")]
            }
        }
        do {
            _ = try engine.putWorkspace(state.key, document: document, allowInvalid: scenario.allowInvalidWorkspace)
        } catch {
            return [setupFailure("the scenario's workspace served", "\(error)")]
        }
        if case .served = scenario.client.bundle,
            let signed = engine.registry.entry(for: state.key)?.configuration.document
        {
            state.bundle = .string(String(decoding: signed, as: UTF8.self))
        }
        if let (payload, kids, ahead) = aheadOfServed, let served = engine.registry.entry(for: state.key) {
            do {
                let bytes = try signed(payload, revision: served.configuration.revision + ahead, kids: kids)
                state.bundle = .string(String(decoding: bytes, as: UTF8.self))
            } catch {
                return [setupFailure("the bundled configuration signed ahead of the served one", "\(error)")]
            }
        }
        let traffic = TestTraffic(
            workspaces: Set([state.key] + (state.otherKey.map { [$0] } ?? [])), faultWorkspace: state.key,
            startMs: startMs, skewMs: scenario.clockSkewMs, triggers: scenario.triggers, engine: engine)
        state.traffic = traffic
        context.recorder.record(traffic)
        traffic.note("workspace \(state.key) served; clocks at \(startMs) (+0 ms)")
        for (index, rule) in scenario.faults.enumerated() {
            do {
                _ = try engine.addFault(FaultRule.parse(TestTraffic.scoped(rule, to: state.key)))
                traffic.note("setup: fault \(rule)")
            } catch {
                return [setupFailure("setup.faults[\(index)] added", "\(error)")]
            }
        }
        return []
    }

    private func setupFailure(_ expected: String, _ observed: String) -> Explanation {
        Explanation(place: "setup", expected: expected, observed: observed)
    }

    // MARK: - Running

    /// Creates the client, runs the steps, closes the client and checks the final expectations.
    private func drive(_ state: inout RunState, _ traffic: TestTraffic) -> [Explanation] {
        let configuration: JSONValue
        do {
            configuration = try clientConfiguration(state)
        } catch {
            return [
                Explanation(place: "client", expected: "the client's keys to be known", observed: error.description)
            ]
        }
        do {
            state.clientID = try context.service.createClient(configuration)
        } catch {
            return [
                Explanation(
                    place: "client", expected: "POST /clients to create the client", observed: error.description)
            ]
        }
        traffic.note("client \(state.clientID ?? "?") created")
        var explanations = applyPending(traffic, place: "client")
        var driver = StepDriver(run: self, traffic: traffic, clientID: state.clientID ?? "", workspace: state.key)
        let finished = driver.run(scenario.steps, prefix: "steps")
        explanations += driver.explanations
        if let id = state.clientID {
            do {
                try context.service.close(id)
                state.clientID = nil
                traffic.note("client closed")
            } catch {
                explanations.append(
                    Explanation(place: "close", expected: "DELETE /clients/\(id)", observed: error.description))
            }
        }
        guard finished else { return explanations }
        let check = ExpectationCheck(traffic: traffic, engine: engine, workspace: state.key)
        for (index, expectation) in scenario.expectations.enumerated() {
            if let failure = check.check(expectation, place: "expect[\(index)]") { explanations.append(failure) }
        }
        return explanations
    }

    /// Runs the engine operations triggers left, in the order they fired.
    func applyPending(_ traffic: TestTraffic, place: String) -> [Explanation] {
        traffic.takePending().compactMap { trigger, step in
            do {
                try perform(step, workspace: traffic.faultWorkspace, traffic: traffic)
                traffic.note("trigger \(trigger): \(Self.describe(step))")
                return nil
            } catch {
                return Explanation(
                    place: "triggers[\(trigger)]", expected: "\(Self.describe(step)) to apply", observed: "\(error)")
            }
        }
    }

    /// One engine operation on the test's workspace.
    func perform(_ step: EngineStep, workspace: String, traffic: TestTraffic) throws {
        switch step {
        case .kill(let campaign): _ = try engine.setCampaignStatus(.killed, campaign: campaign, workspace: workspace)
        case .revive(let campaign): _ = try engine.setCampaignStatus(.live, campaign: campaign, workspace: workspace)
        case .replace(let patch, let allowInvalid):
            guard let current = engine.registry.entry(for: workspace)?.source else {
                throw StepFailure(description: "nothing is served under \(workspace)")
            }
            let secret = current["secretKeys"]?[0]?.stringValue ?? ""
            let document = ScenarioWorkspace.pinned(
                ScenarioWorkspace.merge(current, patch), key: workspace, secret: secret)
            _ = try engine.putWorkspace(workspace, document: document, allowInvalid: allowInvalid)
        case .rotate(let config): _ = try engine.rotateKeys(config ? .config : .grant, workspace: workspace)
        case .fault(let rule): _ = try engine.addFault(FaultRule.parse(TestTraffic.scoped(rule, to: workspace)))
        case .clearFaults: try engine.faults.clear(workspace: workspace)
        case .skewClock(let ms): _ = try engine.changeClock(ClockChange(advanceMilliseconds: ms))
        }
    }

    static func describe(_ step: EngineStep) -> String {
        switch step {
        case .kill(let campaign): "kill \(campaign)"
        case .revive(let campaign): "revive \(campaign)"
        case .replace(let patch, _): "replace the workspace with \(patch)"
        case .rotate(let config): "rotate the \(config ? "configuration" : "grant") keys"
        case .fault(let rule): "add the fault \(rule)"
        case .clearFaults: "clear the faults"
        case .skewClock(let ms): "move the mock's clock alone by \(ms) ms"
        }
    }

    // MARK: - The client

    /// The `POST /clients` body (docs/conformance/service-protocol.md, "Creating a client").
    private func clientConfiguration(_ state: RunState) throws(StepFailure) -> JSONValue {
        let client = scenario.client
        let keys = engine.registry.keys
        func keyMap(_ kids: [String]) throws(StepFailure) -> JSONValue {
            var map = JSONObject()
            for kid in kids {
                guard let key = keys[kid] else {
                    throw StepFailure(description: "the mock holds no key \(JSONText.quoted(kid))")
                }
                map.set(kid, .string(key.publicKey.spkiBase64))
            }
            return .object(map)
        }
        var options: JSONObject = [
            "events": ["maxBatchSize": 20, "maxAgeMs": 10000, "gzip": false, "maxQueued": 1000],
            "configuration": ["pollIntervalMs": 60000],
            "app": ["id": "com.example.conformance", "version": "1.0.0"],
        ]
        for member in client.options {
            options.set(member.key, ScenarioWorkspace.merge(options[member.key] ?? .null, member.value))
        }
        return [
            "name": .string(scenario.testName), "baseURL": .string(context.mockURL), "workspaceKey": .string(state.key),
            "configKeys": try keyMap(
                client.configKeys ?? [ScenarioWorkspace.currentConfigKey, ScenarioWorkspace.nextConfigKey]),
            "grantKeys": try keyMap(
                client.grantKeys ?? [ScenarioWorkspace.currentGrantKey, ScenarioWorkspace.nextGrantKey]),
            "bundledConfiguration": state.bundle, "installID": .string(client.installID),
            "customerID": client.customerID.map(JSONValue.string) ?? .null, "grantsSecretKey": .string(state.secret),
            "previewToken": client.previewToken.map(JSONValue.string) ?? .null,
            "events": options["events"] ?? .null, "configuration": options["configuration"] ?? .null,
            "clock": ["startMs": .number(JSONNumber(client.startMs))], "app": options["app"] ?? .null,
        ]
    }

    // MARK: - Ending

    /// Closes a client left open (a step failed), stops listening, and takes the test's workspaces, events,
    /// faults and grants off the mock.
    private func cleanUp(_ state: RunState) {
        if let id = state.clientID { try? context.service.close(id) }
        context.recorder.record(nil)
        for key in [state.key] + (state.otherKey.map { [$0] } ?? []) where engine.registry.entry(for: key) != nil {
            let done = DispatchSemaphore(value: 0)
            do {
                try engine.reset(workspace: key) { _ in done.signal() }
                _ = done.wait(timeout: .now() + .seconds(30))
            } catch {
                continue
            }
        }
    }

    private func result(_ outcome: TestResult.Outcome, log: [String], started: UInt64) -> TestResult {
        TestResult(
            name: scenario.testName, area: scenario.area, scenario: scenario.name, description: scenario.description,
            outcome: outcome, durationMilliseconds: Int((MonotonicClock.now() &- started) / 1_000_000), log: log)
    }

    static func randomHex(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<count).map { _ in digits[Int(generator.next() % 16)] })
    }

    /// The payload of a signed configuration document.
    static func payload(of document: [UInt8]) -> JSONValue? {
        guard let encoded = (try? JSONParser().parse(document))?["payload"]?.stringValue,
            let bytes = Base64.urlDecode(encoded)
        else { return nil }
        return try? JSONParser().parse(bytes)
    }

    /// `payload` with `revision`, signed by the mock's keys `kids` as the configuration endpoint signs: a
    /// document the mock never served, for a bundle newer than what the network has.
    private func signed(_ payload: JSONValue, revision: Int64, kids: [String]) throws -> [UInt8] {
        guard var object = payload.objectValue else { throw StepFailure(description: "the payload is not an object") }
        object.set("revision", .number(JSONNumber(revision)))
        let keys = engine.registry.keys
        var signers: [NamedSigningKey] = []
        for kid in kids {
            guard let key = keys[kid] else { throw StepFailure(description: "the mock holds no key \(kid)") }
            signers.append(NamedSigningKey(kid: kid, key: key))
        }
        return try JWSSigner.general(
            payload: JSONValue.object(object).serialized(), type: .configuration, signers: signers)
    }

    /// The signed document with the last byte of every signature flipped: a bundle that must not verify.
    static func flippingSignatures(_ document: [UInt8]) -> [UInt8] {
        guard var root = try? JSONParser().parse(document).objectValue, let entries = root["signatures"]?.arrayValue
        else {
            return document
        }
        root.set(
            "signatures",
            .array(
                entries.map { entry in
                    guard var object = entry.objectValue, let encoded = object["signature"]?.stringValue,
                        var signature = Base64.urlDecode(encoded), let last = signature.indices.last
                    else { return entry }
                    signature[last] ^= 0x01
                    object.set("signature", .string(Base64.urlEncode(signature)))
                    return .object(object)
                }))
        return JSONValue.object(root).serialized()
    }
}

/// A step that could not be carried out, said for a person.
struct StepFailure: Error, CustomStringConvertible {
    let description: String
}
