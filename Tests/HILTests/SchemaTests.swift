import Foundation
@testable import HIL
import Measurements
import Testing

/// The JSON Schemas in Examples/hil document both formats; these tests keep them true:
/// the examples validate against them (a Swift check of the rules the schemas use, and
/// a real validator where python3-jsonschema is installed), and the keys each schema
/// allows are the keys the loader allows.
@Suite("HIL JSON Schemas")
struct SchemaTests {
    static let pairs = [
        ("Examples/hil/bench.schema.json", "Examples/hil/bench-sim.yaml"), ("Examples/hil/test.schema.json", "Examples/hil/suite.yaml"),
        ("Examples/hil/bench.schema.json", "Examples/hil/bench-usb.yaml"), ("Examples/hil/test.schema.json", "Examples/hil/suite-usb.yaml"),
    ]

    func schema(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Repo.path(path)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("The example bench file and suite validate against their schemas")
    func examplesValidate() throws {
        for (schemaPath, examplePath) in Self.pairs {
            let root = try schema(schemaPath)
            let doc = try #require(try YAMLComposer.compose(try String(contentsOfFile: Repo.path(examplePath), encoding: .utf8), file: examplePath)).plain
            let problems = MiniValidator(root: root).validate(doc as Any, root, at: "$")
            #expect(problems.isEmpty, "\(examplePath): \(problems)")
        }
    }

    @Test("The schemas refuse what the loader refuses (an unknown key, a unit out of the enum, a missing required key, a hub port without its port) and take the flash step's three forms")
    func schemaRefuses() throws {
        let root = try schema("Examples/hil/test.schema.json")
        let bad: [Any] = [
            ["suite": "s", "tests": [["name": "a", "timout": 3, "steps": [["diagnose": NSNull()]]]]],
            ["suite": "s", "tests": [["name": "a", "steps": [["measure": "x", "limits": [["figure": "rise", "unit": "s", "high": 1]]]]]]],
            ["suite": "s", "tests": [["name": "a"]]],
            ["suite": "s", "tests": [["name": "a", "steps": [["flash": ["imgae": "x.hex"]]]]]],
        ]
        for doc in bad { #expect(!MiniValidator(root: root).validate(doc, root, at: "$").isEmpty, "\(doc)") }
        let bench = try schema("Examples/hil/bench.schema.json")
        let badPower: [Any] = [
            ["bench": "b", "devices": [["name": "d", "address": "usb:1-1", "actuator": "x", "power": ["uhubctl": ["location": "1-1"]]]]],
            ["bench": "b", "devices": [["name": "d", "address": "usb:1-1", "actuator": "x", "power": ["uhubctl": ["location": "1-1", "port": 0]]]]],
        ]
        for doc in badPower { #expect(!MiniValidator(root: bench).validate(doc, bench, at: "$").isEmpty, "\(doc)") }
        let good: [Any] = [
            ["bench": "b", "devices": [["name": "d", "address": "usb:1-1", "actuator": "x", "power": ["uhubctl": ["location": "1-1", "port": 2]]]]],
        ]
        for doc in good { #expect(MiniValidator(root: bench).validate(doc, bench, at: "$").isEmpty, "\(doc)") }
        let flashes: [Any] = [
            ["suite": "s", "tests": [["name": "a", "steps": [["flash": NSNull()], ["flash": "x.hex"], ["flash": ["image": "x.hex"]]]]]]
        ]
        for doc in flashes { #expect(MiniValidator(root: root).validate(doc, root, at: "$").isEmpty, "\(doc)") }
    }

    @Test("Each schema allows exactly the keys the loader allows")
    func keysAgree() throws {
        let bench = try schema("Examples/hil/bench.schema.json")
        let props = { (o: [String: Any]) in Set((o["properties"] as? [String: Any])?.keys.map { $0 } ?? []) }
        #expect(props(bench) == Set(BenchFile.keys))
        let device = try #require(((bench["properties"] as? [String: Any])?["devices"] as? [String: Any])?["items"] as? [String: Any])
        #expect(props(device) == Set(BenchFile.deviceKeys))
        #expect(props(try #require((device["properties"] as? [String: Any])?["accelerometer"] as? [String: Any])) == Set(BenchFile.accelerometerKeys))
        let power = try #require((device["properties"] as? [String: Any])?["power"] as? [String: Any])
        #expect(props(power) == Set(BenchFile.powerKeys))
        #expect(props(try #require((power["properties"] as? [String: Any])?["uhubctl"] as? [String: Any])) == Set(BenchFile.uhubctlKeys))
        let test = try schema("Examples/hil/test.schema.json")
        #expect(props(test) == Set(TestScript.keys))
        let testItem = try #require(((test["properties"] as? [String: Any])?["tests"] as? [String: Any])?["items"] as? [String: Any])
        #expect(props(testItem) == Set(TestCase.keys))
        let defs = try #require(test["$defs"] as? [String: Any])
        #expect(props(try #require(defs["step"] as? [String: Any])) == Set(Step.keys))
        let sweep = try #require(((defs["step"] as? [String: Any])?["properties"] as? [String: Any])?["sweep"] as? [String: Any])
        let sweepOptions = try #require((sweep["anyOf"] as? [[String: Any]])?.first { $0["properties"] != nil })
        #expect(props(sweepOptions) == Set(Step.sweepKeys))
        let flash = try #require(((defs["step"] as? [String: Any])?["properties"] as? [String: Any])?["flash"] as? [String: Any])
        let flashOptions = try #require((flash["anyOf"] as? [[String: Any]])?.first { $0["properties"] != nil })
        #expect(props(flashOptions) == Set(Step.flashKeys))
        let limit = try #require(defs["limit"] as? [String: Any])
        #expect(props(limit) == Set(Limit.keys))
        let figures = ((limit["properties"] as? [String: Any])?["figure"] as? [String: Any])?["enum"] as? [String]
        #expect(figures.map(Set.init) == Set(Figure.allCases.map(\.rawValue)))
        let units = ((limit["properties"] as? [String: Any])?["unit"] as? [String: Any])?["enum"] as? [String]
        #expect(units.map(Set.init) == Set(MeasurementUnit.allCases.map(\.rawValue)))
    }

    @Test("A real JSON Schema validator (python3-jsonschema) accepts the examples, where it is installed")
    func pythonJSONSchema() throws {
        let probe = try runProcess("/usr/bin/env", ["python3", "-c", "import jsonschema, yaml"])
        guard probe.status == 0 else {
            print("note: python3 with jsonschema and yaml is not importable here (scripts/apt-packages.txt installs python3-jsonschema python3-yaml): the Swift check above stands alone")
            return
        }
        for (schemaPath, examplePath) in Self.pairs {
            let script = "import json, sys, yaml, jsonschema; jsonschema.validate(yaml.safe_load(open(sys.argv[2])), json.load(open(sys.argv[1])))"
            let r = try runProcess("/usr/bin/env", ["python3", "-c", script, Repo.path(schemaPath), Repo.path(examplePath)])
            #expect(r.status == 0, "\(examplePath): \(r.stderr)")
        }
    }
}

/// The part of JSON Schema (2020-12) the two schemas use: type, required, properties,
/// additionalProperties false, enum, items, min/maxItems, min/maxProperties, minimum,
/// maximum, exclusiveMinimum, minLength, anyOf, oneOf and local $ref.
struct MiniValidator {
    let root: [String: Any]

    func validate(_ value: Any, _ schema: [String: Any], at path: String) -> [String] {
        var problems: [String] = []
        if let ref = schema["$ref"] as? String, ref.hasPrefix("#/") {
            var node: Any = root
            for part in ref.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] ?? [:] }
            problems += validate(value, node as? [String: Any] ?? [:], at: path)
        }
        if let type = schema["type"] as? String, !Self.has(type, value) { return ["\(path): not \(type)"] }
        if let e = schema["enum"] as? [Any], !e.contains(where: { "\($0)" == "\(value)" }) { problems.append("\(path): \(value) not in enum") }
        if let n = Self.number(value) {
            if let m = schema["minimum"] as? Double, n < m { problems.append("\(path): below minimum") }
            if let m = schema["maximum"] as? Double, n > m { problems.append("\(path): above maximum") }
            if let m = schema["exclusiveMinimum"] as? Double, n <= m { problems.append("\(path): not above exclusiveMinimum") }
        }
        if let s = value as? String, let m = schema["minLength"] as? Int, s.count < m { problems.append("\(path): too short") }
        if let o = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where o[key] == nil { problems.append("\(path): missing \(key)") }
            let props = schema["properties"] as? [String: Any] ?? [:]
            for (k, v) in o {
                if let sub = props[k] as? [String: Any] {
                    problems += validate(v, sub, at: "\(path).\(k)")
                } else if (schema["additionalProperties"] as? Bool) == false {
                    problems.append("\(path): unknown key \(k)")
                }
            }
            if let m = schema["minProperties"] as? Int, o.count < m { problems.append("\(path): too few keys") }
            if let m = schema["maxProperties"] as? Int, o.count > m { problems.append("\(path): too many keys") }
        }
        if let a = value as? [Any] {
            if let m = schema["minItems"] as? Int, a.count < m { problems.append("\(path): too few items") }
            if let items = schema["items"] as? [String: Any] {
                for (i, v) in a.enumerated() { problems += validate(v, items, at: "\(path)[\(i)]") }
            }
        }
        if let any = schema["anyOf"] as? [[String: Any]], !any.contains(where: { validate(value, $0, at: path).isEmpty }) {
            problems.append("\(path): matches none of anyOf")
        }
        if let one = schema["oneOf"] as? [[String: Any]], one.filter({ validate(value, $0, at: path).isEmpty }).count != 1 {
            problems.append("\(path): does not match exactly one of oneOf")
        }
        return problems
    }

    static func number(_ v: Any) -> Double? {
        if v is Bool { return nil }
        if let i = v as? Int { return Double(i) }
        return v as? Double
    }

    static func has(_ type: String, _ v: Any) -> Bool {
        switch type {
        case "object": v is [String: Any]
        case "array": v is [Any]
        case "string": v is String
        case "number": number(v) != nil
        case "integer": v is Int && !(v is Bool)
        case "null": v is NSNull || (v as Any?) == nil
        case "boolean": v is Bool
        default: true
        }
    }
}

extension YAMLTree {
    /// The document as JSONSerialization gives JSON (by the loader's scalar rules), for
    /// the schema checks.
    var plain: Any {
        switch content {
        case .scalar(let s):
            if s.isNull { return NSNull() }
            if let b = s.bool { return b }
            if let i = s.int { return i }
            if let x = s.number { return x }
            return s.text
        case .sequence(let items): return items.map(\.plain)
        case .mapping(let pairs):
            var out: [String: Any] = [:]
            for p in pairs { if case .scalar(let k) = p.key.content { out[k.text] = p.value.plain } }
            return out
        }
    }
}
