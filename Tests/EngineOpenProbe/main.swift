// engine-open-probe: the library's door, as a user's package opens it —
// `HapticEngine.open(address:actuator:)` from the Hapbridge product — run as COMMAND
// under `hapbridge emulate` (or alone for `sim`). It starts the engine (HELLO, the chip
// brought up for the actuator with whatever calibration is stored for the serial the
// board states), plays a short buzz, reads the driver's settings back from the chip
// through the engine's bus, and prints one line:
//
//   engine loop=closed|open chip=DRV2605L 16=7e 17=96 18=0d 19=7a 1a=b6 1d=80
//
// (register numbers and values in hex: RATED_VOLTAGE...FEEDBACK_CONTROL and CONTROL3),
// or `error MESSAGE` with exit status 1.
//
// usage: engine-open-probe ADDRESS PROFILE
import Foundation
import Hapbridge

@MainActor func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func hex(_ b: UInt8) -> String { (b < 0x10 ? "0" : "") + String(b, radix: 16) }

@MainActor func probe(address text: String, profile name: String) async -> Int32 {
    do {
        let profile = try ActuatorProfileLoader.resolve(name)
        let engine = try HapticEngine.open(address: try DeviceAddress(parsing: text), actuator: profile)
        try await engine.start()
        let caps = await engine.capabilities
        let pattern = HapticPattern(events: [.continuous(at: 0, duration: 0.1, intensity: 0.8, sharpness: 0.3, release: 0.05)])
        let player = try await engine.makePlayer(with: pattern)
        try await player.start(atTime: 0)
        try await Task.sleep(for: .milliseconds(300))
        let settings = try await engine.i2cBus.read(address: 0x5A, register: 0x16, count: 5)
        let control3 = try await engine.i2cBus.read(address: 0x5A, register: 0x1D, count: 1)
        await engine.close()
        let registers = zip(UInt8(0x16)..., settings).map { "\(hex($0))=\(hex($1))" }
        say("engine loop=\(caps.driveLoop == .closed ? "closed" : "open") chip=\(caps.chip.map { "\($0)" } ?? "?") "
            + registers.joined(separator: " ") + " 1d=\(hex(control3[0]))")
        return 0
    } catch {
        say("error \(error)")
        return 1
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: engine-open-probe ADDRESS PROFILE\n".utf8))
    exit(64)
}
exit(await probe(address: arguments[1], profile: arguments[2]))
