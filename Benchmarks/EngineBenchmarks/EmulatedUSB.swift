import Foundation
import SimavrBridgeDevice

/// The engine through the product's whole USB path: this binary runs again as the
/// COMMAND of `hapbridge emulate bridge --firmware elf --log LOG` (client mode,
/// `EmulatedUSBClient.swift`), where it opens the board as hapbridge does
/// (DeviceCatalog → USBBridgeTransport, libusb through umockdev) and drives the
/// real firmware ELF, which simavr runs paced to the wall clock; it then reads the
/// emulation's log for what reached the firmware and the chip, and when.
enum EmulatedUSB {
    static let clientFlag = "--emulated-usb-client"

    /// Runs the client under the emulation; its lines go to our standard output.
    /// Returns false (having said why) when something it needs is not built.
    static func run(events: Int, starts: Int, baseline: Int, packageRoot: String) throws -> Bool {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let hapbridge = me.deletingLastPathComponent().appendingPathComponent("hapbridge").path
        guard FileManager.default.isExecutableFile(atPath: hapbridge) else {
            print("   skipped: no hapbridge beside this binary (swift build --product hapbridge)")
            return false
        }
        guard let artifacts = SimavrBridgeDevice.locate(packageRoot: packageRoot) else {
            print("   skipped: the firmware ELF or sim-harness is not built (\(SimavrBridgeDevice.buildHint))")
            return false
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-usb-bench-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: hapbridge)
        process.arguments = [
            "emulate", "bridge", "--firmware", "elf", "--elf", artifacts.firmware, "--harness", artifacts.harness, "--log", log, "--",
            me.path, clientFlag, "--events", String(events), "--starts", String(starts), "--baseline", String(baseline), "--log", log,
        ]
        fflush(nil)  // our lines first: the client writes to the same descriptor
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { print("   WARNING: the run under the emulation ended with status \(process.terminationStatus)") }
        return process.terminationStatus == 0
    }
}
