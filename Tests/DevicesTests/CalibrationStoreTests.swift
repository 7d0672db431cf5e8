import BridgeLink
import Actuators
import BridgeProtocol
import DRV2605
import Devices
import Foundation
import Testing

/// The calibration store, always in a fresh temporary directory (never the user's
/// configuration).
@Suite("Calibration results stored per board and actuator")
struct CalibrationStoreTests {
    /// A directory of its own for one test, removed when the test ends.
    final class Scratch {
        let path: String
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-calibration-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var store: CalibrationStore { CalibrationStore(directory: path + "/hapbridge/calibration") }
        func files() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: store.directory))?.sorted() ?? [] }
    }

    static func profile() throws -> ActuatorProfile { try ActuatorProfileLoader.resolve("pmd-c10-100", directories: [actuatorDirectory]) }

    /// What the chip model leaves after calibrating the C10-100 (BridgeSessionTests runs it).
    static let result = AutoCalibrationResult(
        ratedVoltageCode: 83, overdriveClampCode: 141, compensationCode: 15, backEMFCode: 149, feedbackControl: 0xA4, lraPeriodCode: 58)

    static func record(serial: String = "HB-0001", measuredAt: TimeInterval = 1_795_000_000) throws -> CalibrationRecord {
        CalibrationRecord(
            result: result, boardSerial: serial, profile: try profile(), chip: .drv2605L, firmwareVersion: "1.1", supplyVolts: 4.98,
            measuredAt: Date(timeIntervalSince1970: measuredAt))
    }

    @Test("results saved for a board and an actuator load back equal, from SERIAL@ACTUATOR.json, with no temporary file left")
    func saveThenLoad() throws {
        let scratch = try Scratch()
        let record = try Self.record()
        let path = try scratch.store.save(record)
        #expect(path == scratch.store.directory + "/HB-0001@pmd-c10-100.json")
        #expect(scratch.files() == ["HB-0001@pmd-c10-100.json"])
        #expect(try scratch.store.load(boardSerial: "HB-0001", profile: Self.profile(), chip: .drv2605L) == record)
        // Another board, or another actuator on this board, has nothing stored.
        #expect(try scratch.store.load(boardSerial: "HB-0002", profile: Self.profile()) == nil)
        var other = try Self.profile()
        other.id = "pmd-c10-100-b"
        #expect(try scratch.store.load(boardSerial: "HB-0001", profile: other) == nil)
    }

    @Test("the file holds the registers to restore, the chip, supply, firmware, the profile's voltages and an ISO 8601 time")
    func theFileSaysWhatWasMeasuredUnderWhat() throws {
        let scratch = try Scratch()
        let path = try scratch.store.save(try Self.record())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for fragment in [
            #""boardSerial": "HB-0001""#, #""id": "pmd-c10-100""#, #""type": "LRA""#, #""ratedVoltage": 2"#, #""maxVoltage": 3"#,
            #""chip": "DRV2605L""#, #""firmwareVersion": "1.1""#, #""supplyVolts": 4.98"#, #""measuredAt": "2026-11-18T11:06:40Z""#,
            #""RATED_VOLTAGE": 83"#, #""OD_CLAMP": 141"#, #""A_CAL_COMP": 15"#, #""A_CAL_BEMF": 149"#, #""FEEDBACK_CONTROL": 164"#,
            #""LRA_PERIOD": 58"#,
        ] {
            #expect(text.contains(fragment), "missing \(fragment)")
        }
    }

    @Test("saving again replaces the file whole")
    func savingAgainReplaces() throws {
        let scratch = try Scratch()
        try scratch.store.save(try Self.record(measuredAt: 1_795_000_000))
        let newer = try Self.record(measuredAt: 1_795_100_000)
        try scratch.store.save(newer)
        #expect(scratch.files() == ["HB-0001@pmd-c10-100.json"])
        #expect(try scratch.store.load(boardSerial: "HB-0001", profile: Self.profile())?.measuredAt == newer.measuredAt)
    }

    @Test("a write that fails leaves what was there and no half-written file")
    func aFailedWriteLeavesNothingBehind() throws {
        let scratch = try Scratch()
        // Something that is not a calibration file already holds the name: the rename
        // over it fails (as root, permissions would not).
        let blocker = scratch.store.path(for: try CalibrationKey(boardSerial: "HB-0001", actuatorID: "pmd-c10-100"))
        try FileManager.default.createDirectory(atPath: blocker + "/keep", withIntermediateDirectories: true)
        #expect(throws: CalibrationStoreError.self) { try scratch.store.save(try Self.record()) }
        #expect(scratch.files() == ["HB-0001@pmd-c10-100.json"])
        #expect(FileManager.default.fileExists(atPath: blocker + "/keep"))
    }

    @Test("a board reporting UNSET is refused with the reason, and nothing is stored")
    func unsetSerialIsRefused() throws {
        let scratch = try Scratch()
        let record = try Self.record(serial: BoardSerialNumber.unset.text)
        do throws(CalibrationStoreError) {
            try scratch.store.save(record)
            Issue.record("UNSET must not key calibration results")
        } catch {
            #expect(error == .unsetSerial)
            #expect(error.description.contains("would be restored on any other board without a serial; nothing was stored"))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.store.directory))
        #expect(throws: CalibrationStoreError.unsetSerial) { try scratch.store.load(boardSerial: "UNSET", profile: Self.profile()) }
        // A 1.0 board reports none at all.
        #expect(throws: CalibrationStoreError.noSerial) { try scratch.store.load(boardSerial: nil, profile: Self.profile()) }
    }

    @Test("keys that could not be file names are refused: a serial or actuator id outside their alphabets")
    func keysAreChecked() throws {
        #expect(throws: CalibrationStoreError.self) { try CalibrationKey(boardSerial: "../HB", actuatorID: "pmd-c10-100") }
        #expect(throws: CalibrationStoreError.self) { try CalibrationKey(boardSerial: "", actuatorID: "pmd-c10-100") }
        #expect(throws: CalibrationStoreError.invalidActuatorID("a/b")) { try CalibrationKey(boardSerial: "HB-1", actuatorID: "a/b") }
        #expect(throws: CalibrationStoreError.invalidActuatorID("x@y")) { try CalibrationKey(boardSerial: "HB-1", actuatorID: "x@y") }
        // '.' and '..' are serials ([0-9A-Za-z._-]); as part of SERIAL@ACTUATOR.json they stay inside.
        #expect(try CalibrationKey(boardSerial: "..", actuatorID: "pmd").fileName == "..@pmd.json")
    }

    @Test("a profile changed since calibration gets .stale naming what changed, never the old reference")
    func staleResultsAreRefused() throws {
        let scratch = try Scratch()
        try scratch.store.save(try Self.record())
        var louder = try Self.profile()
        louder.ratedVoltage = 2.5
        do throws(CalibrationStoreError) {
            _ = try scratch.store.load(boardSerial: "HB-0001", profile: louder)
            Issue.record("a stale calibration was returned")
        } catch {
            guard case .stale(_, let at, let changes) = error else { Issue.record("\(error.description)"); return }
            #expect(at == "2026-11-18T11:06:40Z")
            #expect(changes == ["pmd-c10-100's ratedVoltage changed from 2.0 to 2.5 V"])
            #expect(error.description.contains("run `hapbridge calibrate` again"))
        }
        #expect(throws: CalibrationStoreError.self) { try scratch.store.load(boardSerial: "HB-0001", profile: Self.profile(), chip: .drv2605) }
    }

    /// A stored file edited into something else: the error names the file and the field.
    @Test(
        "a damaged file is refused with the file, the field and the rule",
        arguments: [
            (#""A_CAL_BEMF": 149"#, #""A_CAL_BEMF": 300"#, "field 'registers.A_CAL_BEMF' is 300, allowed: a whole number 0...255"),
            (#""A_CAL_BEMF": 149"#, #""A_CAL_BEMF": 14.5"#, "field 'registers.A_CAL_BEMF' is 14.5"),
            (#""A_CAL_BEMF": 149"#, #""A_CAL_BEMF": "149""#, "field 'registers.A_CAL_BEMF' must be a whole number 0...255, found a string"),
            (#""A_CAL_BEMF": 149,"#, "", "missing required field 'registers.A_CAL_BEMF'"),
            (#""chip": "DRV2605L""#, #""chip": "DRV2605L", "colour": 1"#, "unknown field 'colour'"),
            (#""chip": "DRV2605L""#, #""chip": "DRV2605L", "chip": "DRV2605""#, "field 'chip' appears twice"),
            (#""chip": "DRV2605L""#, #""chip": "DRV9""#, "field 'chip' is \"DRV9\""),
            (#""version": 1"#, #""version": 2"#, "field 'version' is 2"),
            (#""measuredAt": "2026-11-18T11:06:40Z""#, #""measuredAt": "yesterday""#, "field 'measuredAt' is \"yesterday\""),
            (#""boardSerial": "HB-0001""#, #""boardSerial": "HB-0002""#, "field 'boardSerial' is \"HB-0002\" but the file's name says \"HB-0001\""),
            (#""FEEDBACK_CONTROL": 164"#, #""FEEDBACK_CONTROL": 36"#, "field 'registers.FEEDBACK_CONTROL' is 36 (N_ERM_LRA = ERM)"),
            (#""LRA_PERIOD": 58"#, #""LRA_PERIOD": 58,"#, "not valid JSON"),
        ])
    func damagedFilesAreRefused(_ damage: (find: String, replace: String, message: String)) throws {
        let scratch = try Scratch()
        let path = try scratch.store.save(try Self.record())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(damage.find))
        try text.replacingOccurrences(of: damage.find, with: damage.replace).write(toFile: path, atomically: false, encoding: .utf8)
        let profile = try Self.profile()
        do throws(CalibrationStoreError) {
            _ = try scratch.store.load(boardSerial: "HB-0001", profile: profile)
            Issue.record("a damaged file was read")
        } catch {
            #expect(error.description.hasPrefix(path + ": "), "\(error)")
            #expect(error.description.contains(damage.message), "\(error)")
        }
    }

    @Test("a file past the size limit is refused before it is read")
    func oversizedFilesAreRefused() throws {
        let scratch = try Scratch()
        let path = try scratch.store.save(try Self.record())
        try String(repeating: " ", count: CalibrationStore.maxBytes + 1).write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: CalibrationStoreError.tooLarge(file: path, bytes: CalibrationStore.maxBytes + 1, limit: CalibrationStore.maxBytes)) {
            try scratch.store.load(boardSerial: "HB-0001", profile: Self.profile())
        }
    }

    // XDG Base Directory Specification 0.8: "$XDG_CONFIG_HOME defines the base
    // directory relative to which user-specific configuration files should be stored.
    // If $XDG_CONFIG_HOME is either not set or empty, a default equal to
    // $HOME/.config should be used." And: "If an implementation encounters a relative
    // path in any of these variables it should consider the path invalid and ignore it."
    @Test("the user's store follows the XDG Base Directory rules")
    func theUsersStoreFollowsXDG() throws {
        #expect(try CalibrationStore.user(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/u"]).directory == "/cfg/hapbridge/calibration")
        #expect(try CalibrationStore.user(environment: ["HOME": "/home/u"]).directory == "/home/u/.config/hapbridge/calibration")
        #expect(try CalibrationStore.user(environment: ["XDG_CONFIG_HOME": "", "HOME": "/home/u/"]).directory == "/home/u/.config/hapbridge/calibration")
        let relative = try CalibrationStore.user(environment: ["XDG_CONFIG_HOME": "cfg", "HOME": "/home/u"])
        #expect(relative.directory == "/home/u/.config/hapbridge/calibration")
        #expect(relative.warnings.count == 1 && relative.warnings[0].contains("relative path (\"cfg\")"))
        for env in [[:], ["HOME": ""], ["HOME": "home/u"], ["XDG_CONFIG_HOME": "cfg"]] {
            #expect(throws: CalibrationStoreError.self) { try CalibrationStore.user(environment: env) }
        }
        do throws(CalibrationStoreError) { _ = try CalibrationStore.user(environment: [:]) } catch {
            #expect(error.description.contains("HOME is not set: set XDG_CONFIG_HOME or HOME to an absolute path"))
        }
    }

    @Test("a calibration run through the simulated board round-trips through the store; an UNSET serial is refused")
    func aBoardsCalibrationRoundTrips() async throws {
        let profile = try Self.profile()
        let opened = try DeviceCatalog().open(.simulated, simulated: .init(actuator: profile))
        let session = opened.link()
        let identity = try await session.open()
        var driver = DRV2605Driver(bus: session.i2cBus)
        _ = try await driver.bringUp(profile: profile)
        let result = try await driver.autoCalibrate()
        let vbat = try await driver.supplyVoltage()
        try await session.stopAll()
        let chip = try #require(identity.chip)
        let scratch = try Scratch()
        #expect(identity.serialNumber == SimulatedBoardSetup.serialNumber.text)
        // A board without a serial of its own reports the firmware's fallback.
        let unset = CalibrationRecord(result: result, boardSerial: BoardSerialNumber.unset.text, profile: profile, chip: chip)
        #expect(throws: CalibrationStoreError.unsetSerial) { try scratch.store.save(unset) }
        let record = CalibrationRecord(
            result: result, boardSerial: "HB-SIM-0001", profile: profile, chip: chip, firmwareVersion: identity.firmwareVersion, supplyVolts: vbat)
        try scratch.store.save(record)
        let loaded = try #require(try scratch.store.load(boardSerial: "HB-SIM-0001", profile: profile, chip: chip))
        #expect(loaded == record && loaded.result == result)
    }
}
