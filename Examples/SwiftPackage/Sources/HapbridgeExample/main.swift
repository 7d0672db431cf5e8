// Opens a device by address, builds a pattern and plays it, then uses the feedback
// generators — all through `import Hapbridge`. Runs on the simulated board (`sim`):
// no hardware needed. Pass another address (`usb`, `usb:SERIAL`) to use a board.
import Foundation
import Hapbridge

let arguments = CommandLine.arguments.dropFirst()
let address: DeviceAddress? = try arguments.first.map { try DeviceAddress(parsing: $0) } ?? .simulated

// The actuator: a shipped profile by name (Hardware/actuators), or your own .json path.
let actuator = try ActuatorProfileLoader.resolve("pmd-c10-100")

// A pattern built in code: a sharp tap, then a soft 200 ms buzz that fades. An AHAP file
// loads with `AHAPReader.read(bytes)`, a built-in with `SystemHapticLibrary.named("impact.heavy")`.
let pattern = HapticPattern(events: [
    .transient(at: 0, intensity: 1, sharpness: 0.9),
    .continuous(at: 0.05, duration: 0.2, intensity: 0.6, sharpness: 0.3, release: 0.1),
])

// One pattern, start to end: device, actuator (and its stored calibration), engine.
let session = try PlaySession(address: address, actuator: actuator, options: .init(keepsCommands: true))
print("device: \(session.summary)")
try await session.start(pattern)
let result = try await session.run()
let s = result.statistics
print("played: \(s.commandsSent) commands, \(s.lateCommands) late, \(s.boardUnderruns) underruns; peak \(AccelerationTrace.peakText(result.trace.peakG))")
print("stopped: \(result.stopReason ?? "no, played to the end")")

// The feedback generators, as UIKit names them, over an engine of their own.
let engine = try HapticEngine.open(address: address, actuator: actuator)
let impact = ImpactFeedbackGenerator(style: .heavy, engine: engine)
let notification = NotificationFeedbackGenerator(engine: engine)
let selection = SelectionFeedbackGenerator(engine: engine)
guard await impact.prepare() else {  // the engine starts now, so the impact below starts at once
    print("cannot start the engine: \(await impact.player.lastError.map { "\($0)" } ?? "?")")
    exit(1)
}
await impact.impactOccurred(intensity: 0.7)
await notification.notificationOccurred(.success)
await selection.selectionChanged()
try await Task.sleep(for: .milliseconds(400))  // the generators' haptics play out on the wall clock
let g = await engine.statistics
print("feedback: \(g.commandsSent) commands, \(g.lateCommands) late")
await engine.close()
