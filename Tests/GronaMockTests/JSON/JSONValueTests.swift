import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@Suite("JSON values and objects")
struct JSONValueTests {
    @Test(
        "accessors answer only for their own type",
        arguments: [
            (JSONValue.null, "null"), (true, "boolean"), (7, "number"), ("s", "string"), ([1], "array"),
            (["k": 1], "object"),
        ] as [(JSONValue, String)])
    func accessors(_ value: JSONValue, _ typeName: String) {
        #expect(value.typeName == typeName)
        #expect(value.isNull == (typeName == "null"))
        #expect((value.boolValue != nil) == (typeName == "boolean"))
        #expect((value.numberValue != nil) == (typeName == "number"))
        #expect((value.int64Value != nil) == (typeName == "number"))
        #expect((value.doubleValue != nil) == (typeName == "number"))
        #expect((value.stringValue != nil) == (typeName == "string"))
        #expect((value.arrayValue != nil) == (typeName == "array"))
        #expect((value.objectValue != nil) == (typeName == "object"))
    }

    @Test("accessors return the payload")
    func payloads() throws {
        let value = try JSONParser().parse(
            #"{"s":"x","b":false,"i":1764478800123,"d":0.5,"big":12345678901234567890,"a":[1,"two"],"o":{"k":null}}"#)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["b"]?.boolValue == false)
        #expect(value["i"]?.int64Value == 1_764_478_800_123)
        #expect(value["i"]?.doubleValue == 1_764_478_800_123)
        #expect(value["d"]?.doubleValue == 0.5)
        #expect(value["d"]?.int64Value == nil)
        #expect(value["big"]?.int64Value == nil)
        #expect(value["a"]?.arrayValue == [1, "two"])
        #expect(value["a"]?[1] == "two")
        #expect(value["a"]?[2] == nil)
        #expect(value["a"]?[-1] == nil)
        #expect(value["o"]?["k"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value["s"]?["x"] == nil)
        #expect(value[0] == nil)
    }

    @Test("value(at:) follows a path and stops at a missing key, a short array or a wrong type")
    func valueAtPath() throws {
        let value = try JSONParser().parse(#"{"campaigns":[{"id":"a"},{"id":"b","placement":"home_topp"}]}"#)
        let path = JSONPath.root.appending("campaigns").appending(1).appending("placement")
        #expect(value.value(at: path) == "home_topp")
        #expect(value.value(at: .root) == value)
        #expect(value.value(at: JSONPath.root.appending("campaigns").appending(2)) == nil)
        #expect(value.value(at: JSONPath.root.appending("campaigns").appending("id")) == nil)
        #expect(value.value(at: JSONPath.root.appending(0)) == nil)
    }

    @Test("strings compare by UTF-8 bytes, as keys do, not by canonical equivalence")
    func stringEquality() {
        #expect("\u{E9}" == "e\u{301}")  // Swift's String equality
        #expect(JSONValue.string("\u{E9}") != JSONValue.string("e\u{301}"))
        #expect(JSONValue.string("é") == JSONValue.string("é"))
    }

    @Test("objects compare member by member in order")
    func objectEquality() {
        let ab: JSONValue = ["a": 1, "b": 2]
        #expect(ab == ["a": 1, "b": 2])
        #expect(ab != ["b": 2, "a": 1])
        #expect(ab != ["a": 1])
        #expect(ab != ["a": 1, "b": 3])
        #expect(JSONValue.array([1, 2]) != [2, 1])
        #expect(JSONValue.null != false)
        #expect(JSONValue.string("1") != 1)
    }

    @Test("an object looks up, replaces in place, appends and removes while keeping order")
    func objectMutation() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        #expect(object.count == 3)
        #expect(object["b"] == 2)
        #expect(object["z"] == nil)
        #expect(object.index(forKey: "c") == 2)
        object.set("b", "two")
        #expect(object.keys == ["a", "b", "c"])
        #expect(object["b"] == "two")
        object.set("d", 4)
        #expect(object.keys == ["a", "b", "c", "d"])
        #expect(object.remove("a") == 1)
        #expect(object.remove("a") == nil)
        object["c"] = nil
        #expect(object.keys == ["b", "d"])
        object["e"] = .null
        #expect(object.keys == ["b", "d", "e"])
        #expect(object["e"] == .null)
        var visited: [String] = []
        for (key, _) in object { visited.append(key) }
        #expect(visited == ["b", "d", "e"])
        #expect(object.map(\.value) == ["two", 4, .null])
    }

    @Test("keys are matched by bytes, so two spellings of é are two members")
    func byteKeys() {
        var object = JSONObject()
        object["\u{E9}"] = 1
        object["e\u{301}"] = 2
        #expect(object.count == 2)
        #expect(object["\u{E9}"] == 1)
        #expect(object["e\u{301}"] == 2)
    }

    @Test("building from members or a literal keeps one member per key, the later value in the earlier place")
    func construction() {
        let fromMembers = JSONObject([(key: "a", value: 1), (key: "b", value: 2), (key: "a", value: 3)])
        #expect(fromMembers.keys == ["a", "b"])
        #expect(fromMembers["a"] == 3)
        let literal: JSONValue = ["a": 1, "b": 2, "a": 3]
        #expect(literal == .object(fromMembers))
        #expect(JSONObject().isEmpty)
    }
}

@Suite("JSON paths")
struct JSONPathTests {
    @Test(
        "render like the contract's examples",
        arguments: [
            ([], "$"),
            ([.key("campaigns"), .index(2), .key("placement")], "campaigns[2].placement"),
            ([.key("config"), .key("settings"), .key("imageHosts"), .index(0)], "config.settings.imageHosts[0]"),
            ([.key("events"), .index(3), .key("screen"), .key("type")], "events[3].screen.type"),
            ([.index(0)], "[0]"),
            ([.index(0), .index(1), .key("a_b9")], "[0][1].a_b9"),
            ([.key("substitutes"), .key("sku-1"), .index(0)], #"substitutes["sku-1"][0]"#),
            ([.key("extras"), .key("a.b")], #"extras["a.b"]"#),
            ([.key("")], #"[""]"#),
            ([.key("1st")], #"["1st"]"#),
            ([.key("é")], #"["é"]"#),
            ([.key("say \"hi\"")], #"["say \"hi\""]"#),
            ([.key("_private")], "_private"),
        ] as [([JSONPath.Component], String)])
    func rendering(_ components: [JSONPath.Component], _ expected: String) {
        #expect(JSONPath(components).description == expected)
    }

    @Test("appending returns a new path and leaves the original alone")
    func appending() {
        let campaigns = JSONPath.root.appending("campaigns")
        let second = campaigns.appending(2)
        let placement = second.appending(.key("placement"))
        #expect(campaigns.description == "campaigns")
        #expect(second.description == "campaigns[2]")
        #expect(placement.description == "campaigns[2].placement")
        #expect(placement.components == [.key("campaigns"), .index(2), .key("placement")])
        #expect(JSONPath.root.isRoot)
        #expect(!campaigns.isRoot)
        #expect(JSONPath.root.appending("a") == JSONPath([.key("a")]))
    }
}
