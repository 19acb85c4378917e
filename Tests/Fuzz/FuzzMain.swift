/// The libFuzzer entry point of `grona-fuzz`, the one executable that holds all four fuzz targets.
///
/// `Tests/Fuzz/run.sh` compiles every file of `Sources/GronaMock` together with the files of this folder into
/// one module, so the targets call the module's internal functions directly, the same ones the route handlers
/// call. The target is chosen by the program's name (`run.sh` makes the links `fuzz-json` and so on to
/// `grona-fuzz`) or, for `grona-fuzz` itself, by `GRONA_FUZZ_TARGET`:
///
///     Tests/Fuzz/build/fuzz-json crash-file          # replays one input through the json target
///     GRONA_FUZZ_TARGET=json Tests/Fuzz/build/grona-fuzz crash-file
///
/// A broken invariant traps (`fatalError`), which libFuzzer reports as a crash and saves the input for.

#if canImport(Glibc)
import Glibc
#endif

enum FuzzTarget: String, CaseIterable, Sendable {
    case httpParser = "http-parser"
    case json
    case eventValidator = "event-validator"
    case controlBodies = "control-bodies"

    func run(_ input: [UInt8]) {
        switch self {
        case .httpParser: httpParserFuzz(input)
        case .json: jsonFuzz(input)
        case .eventValidator: eventValidatorFuzz(input)
        case .controlBodies: controlBodiesFuzz(input)
        }
    }

    /// `fuzz-<target>` from the program's name, else `GRONA_FUZZ_TARGET`.
    static func select(programPath: String) -> FuzzTarget? {
        let program = programPath.split(separator: "/").last.map(String.init) ?? ""
        if program.hasPrefix("fuzz-") { return FuzzTarget(rawValue: String(program.dropFirst("fuzz-".count))) }
        guard let name = getenv("GRONA_FUZZ_TARGET") else { return nil }
        return FuzzTarget(rawValue: String(cString: name))
    }
}

/// Set once by `LLVMFuzzerInitialize`, before libFuzzer runs any input, and only read afterwards.
nonisolated(unsafe) private var selectedTarget: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func gronaFuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>
) -> CInt {
    let program = argv.pointee[0].map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget.select(programPath: program) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        Fuzz.printError("grona-fuzz: choose a target (\(names)): run fuzz-<target>, or set GRONA_FUZZ_TARGET")
        exit(2)
    }
    selectedTarget = target
    Fuzz.printError("grona-fuzz: target \(target.rawValue)")
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func gronaFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let target = selectedTarget else { Fuzz.fail("LLVMFuzzerInitialize did not choose a target") }
    target.run(input)
    return 0
}

/// What the targets share: how a broken invariant is reported, and a hash of the input for choices that must
/// replay exactly.
enum Fuzz {
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    /// One engine for the whole run, with no workspaces, its events in memory: the control routes are adapters
    /// over it (issue 29), so the targets that put bodies to a route put them to this engine's operations.
    static let engine: GronaMockEngine = {
        let empty = "/tmp/grona-fuzz-empty-\(getpid())"
        mkdir(empty, 0o700)
        var configuration = GronaMockConfiguration(
            workspacesDirectory: empty, keysDirectory: empty, storage: .sqlite(path: ":memory:"))
        configuration.reloadInterval = .seconds(3600)
        do {
            return try GronaMockEngine.start(configuration, logger: .silent)
        } catch {
            fail("the engine did not start: \(error)")
        }
    }()

    /// A JSON number's value when it is a whole number within Int64 (`1041`, `1041.0`, `1.041e3`), read from its
    /// text independently of `JSONNumber`: the oracle for JSON Schema's integers (issue 28).
    static func wholeNumber(_ text: String) -> Int64? {
        guard let (negative, magnitude) = wholeMagnitude(text) else { return nil }
        if negative { return magnitude <= Int64.min.magnitude ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The same within UInt64 (a negative zero is 0).
    static func wholeUnsigned(_ text: String) -> UInt64? {
        guard let (negative, magnitude) = wholeMagnitude(text), !negative || magnitude == 0 else { return nil }
        return magnitude
    }

    /// Sign and magnitude of a whole number's text: the digits with the point moved by the exponent, every digit
    /// after it zero.
    private static func wholeMagnitude(_ text: String) -> (Bool, UInt64)? {
        var rest = Substring(text.lowercased())
        let negative = rest.hasPrefix("-")
        if negative { rest = rest.dropFirst() }
        let parts = rest.split(separator: "e", maxSplits: 1, omittingEmptySubsequences: false)
        var exponent = 0
        if parts.count == 2 {
            var digits = parts[1]
            let negativeExponent = digits.hasPrefix("-")
            if digits.hasPrefix("-") || digits.hasPrefix("+") { digits = digits.dropFirst() }
            // Past 4,000 no exponent changes the answer: 20 digits are the most a UInt64 has.
            exponent = Int(digits.prefix(5)).map { min($0, 4000) } ?? 0
            if negativeExponent { exponent = -exponent }
        }
        let point = parts[0].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = Array(point[0])
        let fraction = point.count == 2 ? Array(point[1]) : []
        let digits = whole + fraction
        let pointAt = whole.count + exponent
        guard digits.allSatisfy(\.isNumber) else { return nil }
        var magnitude: UInt64 = 0
        for (index, digit) in digits.enumerated() {
            let value = UInt64(digit.wholeNumberValue ?? 0)
            if index >= pointAt {
                guard value == 0 else { return nil }
                continue
            }
            let (times10, overflowed) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carried) = times10.addingReportingOverflow(value)
            guard !overflowed, !carried else { return nil }
            magnitude = sum
        }
        for _ in digits.count..<max(digits.count, pointAt) where magnitude != 0 {
            let (times10, overflowed) = magnitude.multipliedReportingOverflow(by: 10)
            guard !overflowed else { return nil }
            magnitude = times10
        }
        return (negative, magnitude)
    }

    /// Two JSON values alike, numbers by their whole-number value when both are whole (the listing writes
    /// `2.0` as `2`).
    static func sameValue(_ left: JSONValue?, _ right: JSONValue?) -> Bool {
        if case .number(let a)? = left, case .number(let b)? = right, let x = wholeNumber(a.text),
            let y = wholeNumber(b.text)
        {
            return x == y
        }
        return left == right
    }

    /// A trap is how libFuzzer learns of a broken invariant: it then saves the input as `crash-<sha1>`.
    static func fail(_ message: String) -> Never {
        printError("invariant violated: \(message)")
        fatalError(message)
    }

    /// Writes a line to standard error at once, so that it comes before libFuzzer's report.
    static func printError(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// FNV-1a.
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    /// A short, printable excerpt of a value for a failure message.
    static func show(_ value: JSONValue) -> String {
        let text = value.description
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }

    static func show(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(300), as: UTF8.self)
        return bytes.count > 300 ? text + "…" : text
    }

    /// The body of an `HTTPResponse` as JSON, or a failure naming the route.
    static func jsonBody(_ response: HTTPResponse, _ what: String) -> JSONValue {
        do {
            return try JSONParser().parse(response.body)
        } catch {
            fail("\(what): the response body is not JSON (\(error)): \(show(response.body))")
        }
    }

    /// `error.code` of the contract's error body.
    static func errorCode(_ response: HTTPResponse, _ what: String) -> String {
        let body = jsonBody(response, what)
        guard let code = body["error"]?["code"]?.stringValue, body["error"]?["message"]?.stringValue != nil else {
            fail("\(what): a \(response.status.code) without the contract's error body: \(show(body))")
        }
        return code
    }
}
