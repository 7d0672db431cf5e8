import Actuators
import HapticEngine
import Haptics
import SimulatedBoard
import SimulatedBridgeDevice

let rtpInputRegister: UInt8 = 0x02

func actuatorProfile() throws -> ActuatorProfile {
    try ActuatorProfileLoader.resolve("pmd-c10-100")
}

/// The simulated board the benchmarks use: no acceleration trace (it costs time and
/// memory and nothing here reads it).
func benchmarkBoard() throws -> SimulatedBoard {
    let p = try actuatorProfile()
    return SimulatedBoard(configuration: .init(variant: .drv2605L, load: .actuator(Actuator(profile: p)), recordsAcceleration: false))
}

/// RTP_INPUT writes on the simulated board's chip, oldest first; the log is cleared.
func takeRTPWrites(_ board: SimulatedBoard) -> [(time: Double, value: UInt8)] {
    defer { board.clearI2CLog() }
    return board.registerWrites.filter { $0.register == rtpInputRegister }.map { (Double($0.boardTime), $0.value) }
}

/// How long each step of `alternatingSteps` lasts: two control steps (1 kHz), so
/// every event is sampled at least once whatever the float rounding of its edges
/// (1 ms events on a 1 ms grid alias: ~2 % of them fell between two samples).
let stepSeconds = 0.002

/// A stream of `count` device-timed RTP commands: continuous events of
/// `stepSeconds` whose intensity alternates, so each one writes a new amplitude (a
/// steady one would be sent once).
func alternatingSteps(count: Int) -> HapticPattern {
    HapticPattern(events: (0..<count).map { i in
        .continuous(at: Double(i) * stepSeconds, duration: stepSeconds, intensity: i % 2 == 0 ? 1.0 : 0.6, sharpness: 0.5)
    })
}
