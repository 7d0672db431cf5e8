import Foundation
import Testing

@testable import HapbridgeCLI

/// `flash`'s own arguments, before any board is touched: `--device` goes through the
/// same `DeviceArgument` as every other command's, and `--wait-for-bootloader` is
/// bounded and waits only when nothing to flash is on USB.
@Suite struct FlashArgumentTests {
    @Test("flash --device parses through DeviceArgument: usb:BUS-PORT, usb:serial=S and usb, into the address every command uses")
    func deviceIsTheSharedAddressType() throws {
        #expect(try FlashCommand.parse(["--device", "usb:3-1.4"]).device?.address == .usb(.port(bus: 3, ports: [1, 4])))
        #expect(try FlashCommand.parse(["--device", "usb:serial=1-2"]).device?.address == .usb(.serial("1-2")))
        #expect(try FlashCommand.parse(["--device", "usb"]).device?.address == .usb(.any))
    }

    @Test("a malformed flash --device is the same usage error as any command's, in the address's own words; sim and ftdi are refused as not USB bootloaders")
    func badDeviceIsAUsageError() throws {
        let bad = try Hapbridge.run(["flash", "--device", "usb:1-"])
        #expect(bad.status == 2, "\(bad.err)")
        #expect(
            bad.errLines.first == "Error: bad device address \"usb:1-\": a port path is BUS-PORT[.PORT...] with numbers 1-255, e.g. usb:1-2 or usb:3-1.4",
            "\(bad.err)")
        let long = try Hapbridge.run(["flash", "--device", "usb:" + String(repeating: "x", count: 1000)])
        #expect(long.status == 2 && long.err.contains("(1004 characters)") && !long.err.contains(String(repeating: "x", count: 100)), "\(long.err)")
        for notUSB in ["sim", "ftdi"] {
            let run = try Hapbridge.run(["flash", "--device", notUSB])
            #expect(run.status == 2 && run.err.contains("a bootloader is on USB"), "\(notUSB): \(run.err)")
        }
    }

    @Test("--wait-for-bootloader takes 1 to 3600 seconds and no --port/--device; out of range or combined it is a usage error")
    func waitIsBounded() throws {
        for bad in [["0"], ["-3"], ["3601"], ["99999999999999999999999"], ["x"], ["5", "--port", "/dev/ttyACM0"], ["5", "--device", "usb:1-2"]] {
            let run = try Hapbridge.run(["flash", "--wait-for-bootloader"] + bad)
            #expect(run.status == 2 && run.err.contains("--wait-for-bootloader"), "\(bad): \(run.err)")
        }
    }

    @Test("with nothing on USB, flash --wait-for-bootloader says it waits, then gives up with exit 6 naming the bootloaders and the double reset")
    func waitGivesUpWithNoBootloader() throws {
        // A jump to itself at the reset vector: an image flash accepts (code at 0x0000).
        let image = NSTemporaryDirectory() + "/hapbridge-wait-\(getpid())-\(UUID().uuidString).hex"
        try ":040000000C9400005C\n:00000001FF\n".write(toFile: image, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: image) }
        let run = try Hapbridge.run(["flash", "--wait-for-bootloader", "1", image])
        #expect(run.status == 6, "\(run.err)")
        #expect(run.err.contains("waiting up to 1 s"), "\(run.err)")
        #expect(run.err.contains("no bootloader appeared within 1 s") && run.err.contains("twice"), "\(run.err)")
    }
}
