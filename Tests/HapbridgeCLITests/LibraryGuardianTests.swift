import Foundation
import TestSupport
import Testing

/// A program of the user's that opens an FT232H through the library
/// (`HapticEngine.open(address: .ftdi…)`, run as engine-open-probe under `emulate
/// ft232h`) is guarded as `hapbridge play` is: nothing else stops the chip if that program
/// dies, is stopped or hangs (Hardware/boards/ft232h.md, "When the host goes away"), so
/// with no guardian to run it drives nothing unless it asked to go unguarded.
@Suite("the library never drives an FT232H unguarded unasked")
struct LibraryGuardianTests {
    @Test(
        "HapticEngine.open on ftdi runs the hapbridge beside the program as its guardian; a program with no hapbridge beside it or on PATH is refused, saying how to get one, and the chip is never driven (written nothing but the close's RTP 0 and STANDBY)"
    )
    func theLibraryFindsItsGuardianOrDrivesNothing() throws {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let config = scratch.appendingPathComponent("config").path
        let actuator = OneDoorCalibrationTests.actuator

        // Built beside hapbridge (the build directory): guarded, and it plays.
        let beside = try OneDoorCalibrationTests.run(.ft232h, [OneDoorCalibrationTests.probe, "ftdi", actuator], config: config)
        #expect(beside.status == 0 && beside.out.hasPrefix("engine loop="), "\(beside.out)\n\(beside.err)")

        // The same program alone in a directory of its own, with a PATH that has no hapbridge.
        let alone = scratch.appendingPathComponent("alone")
        let emptyPath = scratch.appendingPathComponent("empty-path")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: emptyPath, withIntermediateDirectories: true)
        let program = alone.appendingPathComponent("engine-open-probe").path
        try FileManager.default.copyItem(atPath: OneDoorCalibrationTests.probe, toPath: program)
        let log = scratch.appendingPathComponent("ft232h.jsonl").path
        let refused = try Hapbridge.run(
            ["emulate", "ft232h", "--actuator", actuator, "--log", log, "--", "/usr/bin/env", "PATH=\(emptyPath.path)", program, "ftdi", actuator],
            cpuSeconds: 120, configHome: config)
        #expect(refused.status == 1, "\(refused.out)\n\(refused.err)")
        #expect(refused.out.hasPrefix("error "), "\(refused.out)")
        #expect(refused.out.contains("no hapbridge executable beside this program or on PATH"), "\(refused.out)")
        #expect(refused.out.contains("HostedAdapterSettings(guardian: .none)"), "\(refused.out)")
        // The close's writes (RTP_INPUT 0, MODE STANDBY: Hardware/boards/ft232h.md) are all it may see.
        let closing: Set<[Int]> = [[0x02, 0x00], [0x01, 0x40]]
        let chipWrites = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line -> [Int]? in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], entry["read"] as? Bool == false else { return nil }
            return entry["bytes"] as? [Int] ?? []
        }
        #expect(chipWrites.allSatisfy { closing.contains($0) }, "the chip was written: \(chipWrites.prefix(8))")
    }
}
