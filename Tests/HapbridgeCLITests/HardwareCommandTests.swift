import Actuators
import ArgumentParser
import DRV2605
import Devices
import Foundation
import Plot
import Testing

@testable import HapbridgeCLI

/// The hardware commands on the simulated board, through their shared entry points: the
/// driver's bus is the board's register frames (protocol 1.1), as on a bridge board.
struct HardwareCommandTests {
    static let profiles = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Hardware/actuators").path

    func profile(_ name: String) throws -> ActuatorProfile {
        try ActuatorProfileLoader.resolve(name, directories: [Self.profiles])
    }

    /// A bench session on a simulated board with `actuator` wired (nil: nothing) and `fault`.
    func bench(_ actuator: ActuatorProfile?, fault: SimulatedBoardSetup.Fault = .none) async throws -> BridgeBench {
        let opened = try DeviceCatalog().open(.simulated, simulated: .init(actuator: actuator, fault: fault))
        return try await BridgeBench(opened)
    }

    @Test func calibrateReportsDecodedResultsResonanceAndTheBytesToStore() async throws {
        let p = try profile("pmd-c10-100")
        let device = try await bench(p)
        let report = await CalibrateCommand.calibrate(on: device, profile: p)
        #expect(report.passed)
        #expect(report.calibration != nil)
        #expect(report.text.contains("RATED_VOLTAGE (0x16)") && report.text.contains("= 0x53"))
        #expect(report.text.contains("auto-calibration: PASS"))
        #expect(report.text.contains("A_CAL_COMP") && report.text.contains("A_CAL_BEMF") && report.text.contains("resonance 175.1 Hz"))
        #expect(report.text.contains("RATED_VOLTAGE (0x16)...FEEDBACK_CONTROL (0x1A) = 0x53 0x8D"))
        #expect((report.acceleration?.peakG ?? 0) > 0.5)
    }

    static let shippedProfiles: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: profiles)) ?? [])
        .filter { $0.hasSuffix(".json") && !$0.contains("schema") }.map { String($0.dropLast(5)) }.sorted()

    /// A shipped profile whose figures the model cannot reconcile (a back-EMF out of
    /// the chip's range, an amplitude the coil cannot reach) fails here, not on a bench.
    @Test(arguments: shippedProfiles)
    func everyShippedProfileAutoCalibratesOnTheModel(_ name: String) async throws {
        let p = try profile(name)
        let device = try await bench(p)
        let report = await CalibrateCommand.calibrate(on: device, profile: p)
        #expect(report.passed, "\(name): \(report.text)")
    }

    @Test func atLeastTwoLRAsAndTwoERMsShip() throws {
        let kinds = try Self.shippedProfiles.map { try profile($0).kind }
        #expect(kinds.filter { $0 == .lra }.count >= 2 && kinds.filter { $0 == .erm }.count >= 2)
    }

    @Test func calibrateFailsForAnOpenActuator() async throws {
        let p = try profile("pmd-c10-100")
        let device = try await bench(nil)
        let report = await CalibrateCommand.calibrate(on: device, profile: p)
        #expect(!report.passed)
        #expect(report.text.contains("auto-calibration: FAIL"))
    }

    @Test func diagnoseReportsResonanceForAnLRA() async throws {
        let p = try profile("vybronics-vg0832012")
        let device = try await bench(p)
        let report = await DiagnoseCommand.diagnose(on: device, profile: p)
        #expect(report.passed)
        #expect(report.text.contains("diagnostic: PASS"))
        #expect(report.text.contains("resonance: 23"))  // 235 Hz profile: LRA_PERIOD 43 reads 236.2 Hz
    }

    @Test func romPlaysAnEffectAndMeasuresIt() async throws {
        let p = try profile("pmd-c10-100")
        let device = try await bench(p)
        let report = await ROMCommand.play(ROMEffect.lookup("1")!, library: nil, calibrateFirst: true, on: device, profile: p)
        #expect(report.passed)
        #expect(report.text.contains("WAV_FRM_SEQ2 (0x05) = 0x01 0x00"))
        #expect(report.text.contains("GO (0x0C) cleared"))
        #expect((report.acceleration?.peakG ?? 0) > 0.4)
    }

    @Test func wrongActuatorTypeFailsCalibration() async throws {
        let p = try profile("pmd-c10-100")
        let report = await CalibrateCommand.calibrate(on: try await bench(p, fault: .wrongType), profile: p)
        #expect(!report.passed)
    }

    @Test func absentChipIsReportedAsANack() async throws {
        let p = try profile("pmd-c10-100")
        let device = try await bench(nil, fault: .absent)
        let report = await DiagnoseCommand.diagnose(on: device, profile: p)
        #expect(!report.passed)
        #expect(report.text.contains("no ACK from I2C address 0x5A"))
    }

    @Test func validationRejectsBadArguments() {
        // No --actuator parses: which actuator is decided once the device is open (`ActuatorChoice`).
        #expect(throws: Never.self) { try CalibrateCommand.parse([]) }
        #expect(throws: (any Error).self) { try CalibrateCommand.parse(["--supply", "9"]) }
        #expect(throws: (any Error).self) { try ROMCommand.parse(["999"]) }
        #expect(throws: (any Error).self) { try ROMCommand.parse(["1", "--library", "z"]) }
        #expect(throws: (any Error).self) { try DiagnoseCommand.parse(["--supply", "9"]) }
        #expect(throws: (any Error).self) { try DiagnoseCommand.parse(["--plot", "out.png"]) }
        #expect(throws: Never.self) { try ROMCommand.parse(["--list"]) }
        #expect(throws: Never.self) { try ROMCommand.parse(["strong click 100%", "--actuator", "pmd-307-103", "--plot", "x.svg"]) }
    }

    @Test func plotIsAnSVGWithATimeAxisInMilliseconds() throws {
        let svg = AccelerationPlot.plot(timesMs: [0, 1, 2], g: [0, 0.5, -0.5], title: "t", subtitle: "s").svg()
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.contains("time (ms)"))
    }
}
