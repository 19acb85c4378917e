import Foundation
import GronaMockHTTP
import GronaMockTestSupport
import Testing

/// Replays every input in `Fixtures/fuzz-regressions/`: each crash the fuzzer ever found, and its seeds.
///
/// Each input goes through the three feedings of `Tests/Fuzz/HTTPRequestParserFuzzer.swift` (whole, byte by
/// byte, random splits seeded with the input's FNV-1a hash) with the same limits, so an input that crashed
/// the fuzz target fails here the same way. See docs/fuzzing.md for adding one.
@Suite("Fuzz regressions: HTTPRequestParser")
struct FuzzRegressionTests {
    /// The fuzz target's limits (`fuzzLimits` and `fuzzBodyLimit` there).
    static let fuzzLimits = HTTPParserLimits(maxHeadBytes: 512, maxHeaderCount: 8)
    static let fuzzBodyLimit = 64

    static let folder = Bundle.module.resourceURL?.appendingPathComponent("Fixtures/fuzz-regressions")

    static func inputNames() -> [String] {
        guard let folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
            return []
        }
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test("the regression folder is bundled and holds at least the fuzz seeds")
    func folderIsNotEmpty() {
        #expect(Self.inputNames().count >= 7)
    }

    @Test("a saved fuzz input replays without crashing, the same in every split", arguments: inputNames())
    func replay(_ name: String) throws {
        let folder = try #require(Self.folder)
        let input = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
        ParserVerifier.verify(
            input, limits: Self.fuzzLimits, bodyLimit: Self.fuzzBodyLimit, randomSeeds: [ParserVerifier.hash(input)])
        // The production limits take other paths through the same bytes.
        ParserVerifier.verify(input, randomSeeds: [ParserVerifier.hash(input)])
    }
}
