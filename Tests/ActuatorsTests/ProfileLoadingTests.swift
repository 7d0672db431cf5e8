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

    func parse(_ json: String) throws(ActuatorProfileError) -> ActuatorProfile {
        try ActuatorProfileLoader.parse(Data(json.utf8), file: "test.json")
    }

    @Test func everyShippedProfileLoadsAndValidates() throws {
        let names = ActuatorProfileLoader.availableNames(directories: [Self.directory])
        #expect(names.count >= 4)
        var kinds: [ActuatorProfile.Kind: Int] = [:]
        for name in names {
            let p = try ActuatorProfileLoader.resolve(name, directories: [Self.directory])
            #expect(p.id == name, "file name and id agree")
            #expect(!p.source.document.isEmpty)
            kinds[p.kind, default: 0] += 1
        }
        #expect(kinds[.lra, default: 0] >= 2 && kinds[.erm, default: 0] >= 2)
    }

    @Test func aCustomProfileLoadsFromAPath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("custom-\(UUID().uuidString).json").path
        try Self.valid.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let p = try ActuatorProfileLoader.resolve(path, directories: [])
        #expect(p.id == "my-lra" && p.lra?.resonantFrequencyHz == 200 && p.drive.loop == .closed)
    }

    @Test func unknownNameListsWhereItLooked() {
        #expect(throws: ActuatorProfileError.notFound(name: "nope", searched: ["/nowhere"])) {
            try ActuatorProfileLoader.resolve("nope", directories: ["/nowhere"])
        }
    }

    @Test func missingFieldIsNamed() {
        let json = Self.valid.replacingOccurrences(of: "\"coilResistanceOhms\": 20,", with: "")
        #expect(throws: ActuatorProfileError.missingField(file: "test.json", field: "coilResistanceOhms")) { try parse(json) }
    }

    @Test func missingNestedFieldIsNamedWithItsPath() {
        let json = Self.valid.replacingOccurrences(of: "\"qualityFactor\": 10, ", with: "")
        #expect(throws: ActuatorProfileError.missingField(file: "test.json", field: "lra.qualityFactor")) { try parse(json) }
    }

    @Test func wrongTypeIsNamed() {
        let json = Self.valid.replacingOccurrences(of: "\"ratedVoltage\": 2.0", with: "\"ratedVoltage\": \"2 V\"")
        #expect(throws: ActuatorProfileError.wrongType(file: "test.json", field: "ratedVoltage", expected: "a number")) { try parse(json) }
    }

    @Test func outOfRangeValueIsNamedWithTheAllowedRange() {
        let json = Self.valid.replacingOccurrences(of: "\"resonantFrequencyHz\": 200", with: "\"resonantFrequencyHz\": 20")
        #expect(throws: ActuatorProfileError.outOfRange(file: "test.json", field: "lra.resonantFrequencyHz", value: 20, allowed: "50...500 Hz")) { try parse(json) }
    }

    @Test func maxVoltageBelowRatedIsRejected() {
        let json = Self.valid.replacingOccurrences(of: "\"maxVoltage\": 2.5", with: "\"maxVoltage\": 1.5")
        #expect(throws: ActuatorProfileError.outOfRange(file: "test.json", field: "maxVoltage", value: 1.5, allowed: ">= ratedVoltage (2.0)")) { try parse(json) }
    }

    @Test func misspelledFieldIsRejectedNotIgnored() {
        let json = Self.valid.replacingOccurrences(of: "\"ratedAccelerationG\"", with: "\"ratedAcceleration\"")
        #expect(throws: ActuatorProfileError.unknownField(file: "test.json", field: "ratedAcceleration")) { try parse(json) }
    }

    @Test func unknownTypeListsTheAllowedOnes() {
        let json = Self.valid.replacingOccurrences(of: "\"type\": \"LRA\"", with: "\"type\": \"piezo\"")
        #expect(throws: ActuatorProfileError.invalidValue(file: "test.json", field: "type", value: "piezo", allowed: ["LRA", "ERM"])) { try parse(json) }
    }

    @Test func brakeFactorNullTurnsBrakingOff() throws {
        let json = Self.valid.replacingOccurrences(of: "\"source\"", with: "\"drive\": {\"brakeFactor\": null, \"loop\": \"open\"}, \"source\"")
        let p = try parse(json)
        #expect(p.drive.brakeFactor == nil && p.drive.loop == .open)
    }

    @Test func invalidJSONSaysSo() {
        #expect(throws: ActuatorProfileError.self) { try parse("{ nope") }
    }
}
