import Actuators
import Foundation
import Testing

struct ProfileLoadingTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Hardware/actuators").path

    static let valid = """
        {"id": "my-lra", "maker": "Me", "partNumber": "X1", "type": "LRA", "ratedVoltage": 2.0, "maxVoltage": 2.5,
         "coilResistanceOhms": 20, "ratedAccelerationG": 1.0,
         "lra": {"resonantFrequencyHz": 200, "qualityFactor": 10, "movingMassGrams": 1.5},
         "source": {"document": "bench measurement"}}
        """

    func parse(_ json: String) throws(ActuatorProfileError) -> ActuatorProfileLoader.LoadedProfile {
        try ActuatorProfileLoader.parse(Data(json.utf8), file: "test.json")
    }

    func error(_ json: String) -> ActuatorProfileError? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return error
        }
    }

    @Test("every shipped profile loads, validates and has its file name as id")
    func everyShippedProfileLoadsAndValidates() throws {
        let names = ActuatorProfileLoader.availableNames(directories: [Self.directory])
        #expect(names.count >= 4)
        var kinds: [ActuatorProfile.Kind: Int] = [:]
        for name in names {
            let loaded = try ActuatorProfileLoader.locate(name, directories: [Self.directory])
            #expect(loaded.profile.id == name, "file name and id agree")
            #expect(loaded.file == Self.directory + "/\(name).json" && loaded.warnings.isEmpty && loaded.shadowed.isEmpty)
            #expect(!loaded.profile.source.document.isEmpty)
            kinds[loaded.profile.kind, default: 0] += 1
        }
        #expect(kinds[.lra, default: 0] >= 2 && kinds[.erm, default: 0] >= 2)
    }

    @Test("a custom profile loads from a path and says which file it came from")
    func aCustomProfileLoadsFromAPath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("custom-\(UUID().uuidString).json").path
        try Self.valid.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try ActuatorProfileLoader.locate(path, directories: [])
        #expect(loaded.file == path)
        #expect(loaded.profile.id == "my-lra" && loaded.profile.lra?.resonantFrequencyHz == 200 && loaded.profile.drive.loop == .closed)
    }

    @Test("an unknown name lists where it looked")
    func unknownNameListsWhereItLooked() {
        #expect(throws: ActuatorProfileError.notFound(name: "nope", searched: ["/nowhere"])) {
            try ActuatorProfileLoader.resolve("nope", directories: ["/nowhere"])
        }
    }

    @Test("a missing field is named, nested ones with their path")
    func missingFieldIsNamed() {
        #expect(error(Self.valid.replacingOccurrences(of: "\"coilResistanceOhms\": 20,", with: ""))
            == .missingField(file: "test.json", field: "coilResistanceOhms"))
        #expect(error(Self.valid.replacingOccurrences(of: "\"qualityFactor\": 10, ", with: ""))
            == .missingField(file: "test.json", field: "lra.qualityFactor"))
    }

    @Test("a value of the wrong type is named with what was found")
    func wrongTypeIsNamed() {
        #expect(error(Self.valid.replacingOccurrences(of: "\"ratedVoltage\": 2.0", with: "\"ratedVoltage\": \"2 V\""))
            == .wrongType(file: "test.json", field: "ratedVoltage", expected: "a number, found a string"))
    }

    @Test("a JSON boolean is not a number: true does not calibrate at 1.00 V")
    func booleansAreNotNumbers() {
        for (field, replaced) in [("ratedVoltage", "\"ratedVoltage\": 2.0"), ("lra.qualityFactor", "\"qualityFactor\": 10")] {
            let key = field.split(separator: ".").last.map(String.init) ?? field
            for literal in ["true", "false"] {
                #expect(error(Self.valid.replacingOccurrences(of: replaced, with: "\"\(key)\": \(literal)"))
                    == .wrongType(file: "test.json", field: field, expected: "a number, found a boolean"))
            }
        }
        #expect(error(Self.valid.replacingOccurrences(of: "\"source\"", with: "\"drive\": {\"brakeFactor\": true}, \"source\""))
            == .wrongType(file: "test.json", field: "drive.brakeFactor", expected: "a whole number, found a boolean"))
    }

    @Test("whole-number fields take whole numbers only")
    func integersAreIntegers() throws {
        func drive(_ body: String) -> String {
            Self.valid.replacingOccurrences(of: "\"source\"", with: "\"drive\": {\(body)}, \"source\"")
        }
        #expect(error(drive("\"autoCalibrationMilliseconds\": 150.5"))
            == .wrongType(file: "test.json", field: "drive.autoCalibrationMilliseconds", expected: "a whole number, found 150.5"))
        #expect(error(drive("\"brakeFactor\": 3.5"))
            == .wrongType(file: "test.json", field: "drive.brakeFactor", expected: "a whole number, found 3.5"))
        #expect(error(drive("\"brakeFactor\": 5"))
            == .invalidValue(file: "test.json", field: "drive.brakeFactor", value: "5", allowed: ["1", "2", "3", "4", "6", "8", "16", "null"]))
        #expect(try parse(drive("\"brakeFactor\": 4, \"autoCalibrationMilliseconds\": 250")).profile.drive
            == ActuatorProfile.Drive(brakeFactor: 4, autoCalibrationMilliseconds: 250))
    }

    @Test("an out-of-range value is named with the allowed range")
    func outOfRangeValueIsNamedWithTheAllowedRange() {
        #expect(error(Self.valid.replacingOccurrences(of: "\"resonantFrequencyHz\": 200", with: "\"resonantFrequencyHz\": 20"))
            == .outOfRange(file: "test.json", field: "lra.resonantFrequencyHz", value: 20, allowed: "50...500 Hz"))
        #expect(error(Self.valid.replacingOccurrences(of: "\"maxVoltage\": 2.5", with: "\"maxVoltage\": 1.5"))
            == .outOfRange(file: "test.json", field: "maxVoltage", value: 1.5, allowed: ">= ratedVoltage (2.0)"))
        #expect(error(Self.valid.replacingOccurrences(of: "\"ratedVoltage\": 2.0", with: "\"ratedVoltage\": 1e999"))
            == .outOfRange(file: "test.json", field: "ratedVoltage", value: .infinity, allowed: "0.1...10 V"))
    }

    @Test("misspelt, repeated and misplaced fields are rejected, not ignored")
    func unknownRepeatedAndMisplacedFieldsAreRejected() {
        #expect(error(Self.valid.replacingOccurrences(of: "\"ratedAccelerationG\"", with: "\"ratedAcceleration\""))
            == .unknownField(file: "test.json", field: "ratedAcceleration"))
        #expect(error(Self.valid.replacingOccurrences(of: "\"maxVoltage\": 2.5,", with: "\"maxVoltage\": 2.5, \"maxVoltage\": 9,"))
            == .duplicateField(file: "test.json", field: "maxVoltage"))
        #expect(error(Self.valid.replacingOccurrences(of: "\"source\"", with: "\"erm\": {}, \"source\""))
            == .fieldNotAllowed(file: "test.json", field: "erm", reason: "the profile's type is LRA"))
    }

    @Test("an unknown type lists the allowed ones")
    func unknownTypeListsTheAllowedOnes() {
        #expect(error(Self.valid.replacingOccurrences(of: "\"type\": \"LRA\"", with: "\"type\": \"piezo\""))
            == .invalidValue(file: "test.json", field: "type", value: "piezo", allowed: ["LRA", "ERM"]))
    }

    @Test("brakeFactor null turns braking off; null is not accepted elsewhere")
    func brakeFactorNullTurnsBrakingOff() throws {
        let p = try parse(Self.valid.replacingOccurrences(of: "\"source\"", with: "\"drive\": {\"brakeFactor\": null, \"loop\": \"open\"}, \"source\"")).profile
        #expect(p.drive.brakeFactor == nil && p.drive.loop == .open)
        #expect(error(Self.valid.replacingOccurrences(of: "\"maker\": \"Me\"", with: "\"maker\": null"))
            == .wrongType(file: "test.json", field: "maker", expected: "a string, found null"))
    }

    @Test("invalid JSON names the line and column and what was found")
    func invalidJSONNamesLineAndColumn() {
        #expect(error("{\n  \"id\": \"x\"\n  \"maker\": 1}") == .invalidJSON(file: "test.json", line: 3, column: 3, reason: "missing ',' between object members"))
        #expect(error("{ nope") == .invalidJSON(file: "test.json", line: 1, column: 3, reason: "expected a quoted key, found 'n'"))
        #expect(ActuatorProfileError.invalidJSON(file: "a.json", line: 3, column: 3, reason: "missing ',' between object members").description
            == "a.json: line 3, column 3: not valid JSON: missing ',' between object members")
    }

    @Test("a trailing comma is accepted with a warning naming its line and column, as in a pattern")
    func trailingCommasAreWarned() throws {
        let loaded = try parse(Self.valid.replacingOccurrences(of: "\"bench measurement\"}", with: "\"bench measurement\",}"))
        #expect(loaded.profile.source.document == "bench measurement")
        #expect(loaded.warnings.map(\.description) == ["test.json: line 4, column 44: warning: trailing comma before '}' ignored"])
    }

    @Test("a profile larger than 1 MiB is refused before it is parsed")
    func sizeLimit() {
        let huge = Self.valid.replacingOccurrences(of: "\"bench measurement\"", with: "\"" + String(repeating: "x", count: 1 << 20) + "\"")
        #expect(error(huge) == .tooLarge(file: "test.json", bytes: huge.utf8.count, limit: 1 << 20))
    }

    @Test("text from the file is quoted and cut in a message")
    func echoedValuesAreCapped() {
        let long = String(repeating: "q", count: 500)
        let message = error(Self.valid.replacingOccurrences(of: "\"type\": \"LRA\"", with: "\"type\": \"\(long)\""))?.description ?? ""
        #expect(message.contains("…\" (500 characters)") && message.count < 200)
    }
}
