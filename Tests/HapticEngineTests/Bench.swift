import BridgeLink
import Actuators
import DRV2605
import DRV2605Model
import Foundation
import HapticCompilation
import HapticEngine
import Haptics
import SimulatedBoard
import SimulatedBridgeDevice

/// The shipped profiles, found from this file so the tests do not depend on the
/// working directory.
let actuatorDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Hardware/actuators").path

func profile(_ name: String = "pmd-c10-100") throws -> ActuatorProfile {
    try ActuatorProfileLoader.resolve(name, directories: [actuatorDirectory])
}

/// An engine in manual driving on a simulated board: nothing happens between the
/// test's `advance` calls, and nothing sleeps.
func makeEngine(
    profile name: String = "pmd-c10-100", variant: DeviceVariant = .drv2605L, link: SimulatedBridgeDevice.Link = .init(),
    options: HapticEngine.Options = .init(driving: .manual)
) throws -> HapticEngine {
    let p = try profile(name)
    let device = SimulatedBridgeDevice(board: SimulatedBoard(configuration: .init(profile: p, variant: variant)), link: link)
    return HapticEngine(link: BridgeLink(transport: device), actuator: p, options: options)
}

/// Reads the simulated board behind an engine.
func onBoard<T: Sendable>(_ engine: HapticEngine, _ body: @Sendable (SimulatedBridgeDevice) -> T) async -> T {
    await engine.withDevice { device in
        // The tests only ever build engines on a SimulatedBridgeDevice (makeEngine).
        body(device as! SimulatedBridgeDevice)
    }
}

/// RTP_INPUT writes on the chip as (board time, signed amplitude).
func rtpWrites(_ engine: HapticEngine) async -> [(time: Int64, amplitude: Int8)] {
    await onBoard(engine) { d in
        d.board.registerWrites.filter { $0.register == 0x02 }.map { (Int64($0.boardTime), Int8(bitPattern: $0.value)) }
    }
}

/// Collects callback values in order. Values arrive on the engine's callback queue
/// and are read by the test: every access to `items` holds `lock`, which is what
/// makes the `@unchecked Sendable` sound.
final class Recorder<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var values: [T] { lock.withLock { items } }
}

extension HapticPattern {
    static func buzz(_ seconds: Double = 0.2, intensity: Double = 1, sharpness: Double = 0.5) -> HapticPattern {
        HapticPattern(events: [.continuous(at: 0, duration: seconds, intensity: intensity, sharpness: sharpness)])
    }
}
