import Actuators
import DRV2605
import DRV2605Model
import Haptics
import Testing
@testable import HapticCompilation

/// What closed loop buys, on the chip model with the C10-100's physics: the same
/// pattern compiled for open loop and, with the unit's calibration (run through the
/// driver on the same model), for closed loop, each played from a chip just out of
/// reset (`ChipBench`). The unit's own resonance is what the actuator is; the
/// profile's 175 Hz is what its datasheet says.
@Suite struct ClosedLoopThroughTheChipTests {
    /// The C10-100 as its datasheet says, and a unit of it resonating at `hz`.
    static func unit(resonatingAt hz: Double) -> ActuatorProfile {
        var unit = Profiles.lra
        unit.lra?.resonantFrequencyHz = hz
        return unit
    }

    static func targets(for unit: ActuatorProfile) async throws -> (open: DriveTarget, closed: DriveTarget) {
        let calibration = try await ChipBench.calibrate(Profiles.lra, unit: unit)
        return (try DriveTarget(profile: Profiles.lra, variant: .drv2605L),
                try DriveTarget(profile: Profiles.lra, variant: .drv2605L, calibration: calibration))
    }

    static func continuous(intensity: Double, sharpness: Double) throws -> Timeline {
        try Renderer.render(HapticPattern(events: [.continuous(at: 0, duration: 0.3, intensity: intensity, sharpness: sharpness)]))
    }

    /// Peak acceleration over the last 100 ms of the 300 ms event.
    static func steadyG(_ p: ChipBench.Played) -> Double { p.trace.peakG(from: p.at(200_000), to: p.at(300_000)) }

    // The chip's auto-resonance engine (DRV2605 datasheet SLOS825, "Auto-Resonance
    // Engine for LRA") drives at the resonance it times from the back-EMF; open loop
    // drives at OL_LRA_PERIOD, set here from the datasheet's f0.
    @Test("a unit resonating 9 % above its datasheet's f0 keeps its rated acceleration in closed loop; open loop at the nominal f0 loses most of it")
    func closedLoopFollowsTheUnitsResonance() async throws {
        let unit = Self.unit(resonatingAt: 190)
        let (open, closed) = try await Self.targets(for: unit)
        // The chip measured the unit, not the datasheet.
        #expect(abs((closed.resonantFrequencyHz ?? 0) - 190) < 3)
        let pattern = try Self.continuous(intensity: 1, sharpness: 0.5)
        let openG = Self.steadyG(try ChipBench.play(DeviceProgram.compile(pattern, for: open), unit: unit))
        let closedG = Self.steadyG(try ChipBench.play(DeviceProgram.compile(pattern, for: closed), unit: unit))
        let rated = Profiles.lra.ratedPeakAccelerationG
        #expect(abs(closedG - rated) < 0.15 * rated, "closed loop \(closedG) g against the rated \(rated) g")
        #expect(closedG > 2 * openG, "closed loop \(closedG) g, open loop at 175 Hz \(openG) g")
    }

    @Test("a transient rings down in about half the time in closed loop: the chip's brake is locked to the mass's phase")
    func closedLoopBrakesTransientsShorter() async throws {
        let unit = Profiles.lra
        let (open, closed) = try await Self.targets(for: unit)
        let pattern = try Renderer.render(HapticPattern(events: [.transient(at: 0, intensity: 1, sharpness: 0.5)]))
        func ringDown(_ target: DriveTarget) throws -> (peak: Double, microseconds: UInt64) {
            let p = try ChipBench.play(DeviceProgram.compile(pattern, for: target), unit: unit)
            let peak = p.trace.peakG()
            let last = try #require(p.trace.lastTime(above: 0.1 * peak, from: p.start, windowMicroseconds: 2_000))
            return (peak, last - p.start)
        }
        let o = try ringDown(open), c = try ringDown(closed)
        // Same push (full scale for 2.5 periods against OD_CLAMP at 3 V either way).
        #expect(c.peak > 0.9 * o.peak, "peak closed \(c.peak) g, open \(o.peak) g")
        #expect(c.microseconds * 10 < o.microseconds * 6, "10 % of peak after \(c.microseconds) µs closed, \(o.microseconds) µs open")
    }

    @Test("in closed loop sharpness sets how crisply a vibration starts and stops: S = 1 reaches 90 % and stops in under half the time S = 0 takes")
    func sharpnessShapesClosedLoopSteps() async throws {
        let unit = Profiles.lra
        let closed = try await Self.targets(for: unit).closed
        func edges(sharpness: Double) throws -> (rise: UInt64, stop: UInt64, overshoot: Double) {
            let p = try ChipBench.play(DeviceProgram.compile(try Self.continuous(intensity: 0.7, sharpness: sharpness), for: closed), unit: unit)
            let steady = Self.steadyG(p)
            let rise = try #require(p.trace.firstTime(reaching: 0.9, of: steady, from: p.start, windowMicroseconds: 1_000)) - p.start
            let stop = try #require(p.trace.lastTime(above: 0.1 * steady, from: p.at(300_000), windowMicroseconds: 1_000)) - p.at(300_000)
            return (rise, stop, p.trace.peakG(from: p.start, to: p.at(300_000)) / steady)
        }
        let sharp = try edges(sharpness: 1), dull = try edges(sharpness: 0)
        #expect(sharp.rise * 2 <= dull.rise, "90 % after \(sharp.rise) µs sharp, \(dull.rise) µs dull")
        #expect(sharp.stop * 2 <= dull.stop, "stopped after \(sharp.stop) µs sharp, \(dull.stop) µs dull")
        // The chip's own overdrive gets there without overshooting.
        #expect(sharp.overshoot < 1.05 && dull.overshoot < 1.05)
    }

    @Test("closed-loop amplitude follows I² of the rated amplitude and the drive never passes OD_CLAMP")
    func closedLoopAmplitudeIsTheSquareOfIntensity() async throws {
        let unit = Profiles.lra
        let closed = try await Self.targets(for: unit).closed
        let full = try ChipBench.play(DeviceProgram.compile(try Self.continuous(intensity: 1, sharpness: 1), for: closed), unit: unit)
        let part = try ChipBench.play(DeviceProgram.compile(try Self.continuous(intensity: 0.7, sharpness: 1), for: closed), unit: unit)
        // 0.7² = 0.49 (RTP round(127 × 0.49) = 62: 62 / 127 = 0.488).
        let ratio = Self.steadyG(part) / Self.steadyG(full)
        #expect(abs(ratio - 62.0 / 127) < 0.02, "I = 0.7 plays at \(ratio) of I = 1")
        // OD_CLAMP 141 × 21.22 mV = 2.992 V peak.
        #expect((full.trace.driveVolts.map(abs).max() ?? 0) <= 141 * 0.02122 + 1e-9)
    }
}
