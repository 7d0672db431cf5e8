import Actuators
import DRV2605
import Foundation
import Measurements

/// The open-loop frequency response of an LRA, measured on a device: the DRV2605L
/// drives the actuator in open loop at each OL_LRA_PERIOD code in the range (a square
/// wave at that period, the RTP level of OD_CLAMP's RMS voltage), the acceleration is
/// recorded once the response has settled, and its fundamental's amplitude per drive
/// volt is the response at that frequency (`FrequencyResponse`, which fits f0 and Q).
///
/// OL_LRA_PERIOD steps the period by 98.46 µs, so the frequencies are the codes'
/// (3 Hz apart near 175 Hz), not an even grid; OD_CLAMP is set again at each one so the
/// drive's RMS voltage stays the same whatever the dead time takes (datasheet: the
/// open-loop RMS voltage is 21.32 mV × OD_CLAMP × √(1 − f × 800 µs)).
public struct FrequencySweep: Sendable {
    public struct Options: Sendable, Equatable {
        /// The range, Hz; nil: 0.7 × and 1.4 × the profile's resonance.
        public var fromHz: Double?
        public var toHz: Double?
        /// The RTP level, 0 < level ≤ 1 of the rated RMS voltage.
        public var level = 1.0
        /// Driven before each recording, so the response settles (a resonator's
        /// transient decays as e^(−t/τ), τ = 2Q/ω0: 20 ms for Q 11 at 175 Hz).
        public var settleMicroseconds: UInt64 = 150_000
        /// Recorded at each frequency (whole cycles of it are analysed).
        public var windowMicroseconds: UInt64 = 100_000

        public init() {}

        /// The default range's ends relative to the profile's resonance.
        public static let defaultSpan = (below: 0.7, above: 1.4)

        /// The range swept on an LRA resonating at `resonanceHz`: `fromHz` and `toHz`,
        /// each defaulting to its end of `defaultSpan`.
        public func range(resonanceHz: Double) -> (fromHz: Double, toHz: Double) {
            (fromHz ?? resonanceHz * Self.defaultSpan.below, toHz ?? resonanceHz * Self.defaultSpan.above)
        }
    }

    /// Why a sweep could not run (before or while driving; the actuator is left stopped).
    public enum SweepError: Error, Sendable, Equatable, CustomStringConvertible {
        case notAnLRA(String)
        case invalidRange(String)
        case needsLVariant(DeviceVariant)
        case noAcceleration(String)
        case driver(DRV2605Error)

        public var description: String {
            switch self {
            case .notAnLRA(let name): "\(name) is not an LRA: a frequency sweep drives a resonator at OL_LRA_PERIOD"
            case .invalidRange(let why): why
            case .needsLVariant(let v):
                "the chip is a \(v): driving an LRA open loop at a set period (OL_LRA_PERIOD) needs a DRV2605L"
            case .noAcceleration(let device):
                "\(device) gives no acceleration (no accelerometer or simulated sled): a sweep measures the actuator's acceleration"
            case .driver(let e): "\(e)"
            }
        }
    }

    public var response: FrequencyResponse
    /// Where the acceleration came from ("simulated sled", "LIS3DH").
    public var accelerationSource: String
    /// The same as reports say it: sensor or model, and the samples over every window
    /// (nil when nothing was recorded).
    public var provenance: AccelerationProvenance?
    /// "sensor (LIS3DH, 1344 samples at 1344 Hz)", "model (simulated sled)".
    public var sourceText: String { provenance?.text ?? accelerationSource }
    public var options: Options

    /// The frequencies a sweep may name: OL_LRA_PERIOD's longest period (its lowest
    /// frequency, rounded down to a whole Hz) to its shortest.
    public static var reachableHz: ClosedRange<Double> {
        frequency(code: UInt8(OpenLoopLRAPeriodRegister.periodField.maxValue)).rounded(.down)...frequency(code: 1)
    }

    /// "OL_LRA_PERIOD reaches 79...10156 Hz", for messages.
    public static var reachText: String {
        "OL_LRA_PERIOD reaches \(String(format: "%.0f", reachableHz.lowerBound))...\(String(format: "%.0f", reachableHz.upperBound.rounded(.down))) Hz"
    }

    /// The OL_LRA_PERIOD codes the range covers, highest frequency last.
    public static func codes(fromHz: Double, toHz: Double) throws(SweepError) -> [UInt8] {
        guard fromHz.isFinite, toHz.isFinite, fromHz > 0, fromHz < toHz else {
            throw .invalidRange("--from \(fromHz) Hz --to \(toHz) Hz: the range must run from a lower to a higher frequency")
        }
        guard reachableHz.contains(fromHz), reachableHz.contains(toHz) else {
            throw .invalidRange("--from \(fromHz) Hz --to \(toHz) Hz: \(reachText)")
        }
        // Only codes whose frequency lies in the range (the nearest code may not).
        let step = DRV2605Formulas.lraPeriodSeconds(code: 1)
        let first = max(1, Int((1 / (toHz * step)).rounded(.up))), last = min(Int(OpenLoopLRAPeriodRegister.periodField.maxValue), Int((1 / (fromHz * step)).rounded(.down)))
        guard first <= last else {
            throw .invalidRange("--from \(fromHz) Hz --to \(toHz) Hz: no OL_LRA_PERIOD code lies in the range (codes are 98.46 µs of period apart)")
        }
        return (first...last).reversed().map { UInt8($0) }
    }

    /// The drive frequency of an OL_LRA_PERIOD code, Hz.
    public static func frequency(code: UInt8) -> Double { 1 / DRV2605Formulas.lraPeriodSeconds(code: max(1, code)) }

    /// Runs the sweep. `progress` hears each frequency before it is driven (index from
    /// 0, count, Hz). Whatever happens, the drive ends at 0 and the chip in standby.
    public static func run<D: HardwareDevice>(
        on device: D, profile: ActuatorProfile, options: Options = Options(), progress: (Int, Int, Double) -> Void = { _, _, _ in }
    ) async throws(SweepError) -> FrequencySweep {
        guard profile.kind == .lra, let lra = profile.lra else { throw .notAnLRA(profile.displayName) }
        guard options.level > 0, options.level <= 1 else { throw .invalidRange("--level \(options.level): the level is a fraction of the rated voltage, above 0 and at most 1") }
        let range = options.range(resonanceHz: lra.resonantFrequencyHz)
        let codes = try codes(fromHz: range.fromHz, toHz: range.toHz)
        var driver = DRV2605Driver(bus: device.bus)
        var openLoop = profile
        openLoop.drive.loop = .open
        let rtp = Int8(max(1, min(127, (options.level * 127).rounded())))
        var points: [FrequencyResponse.Point] = []
        var source: String?
        var provenance: AccelerationProvenance?
        do {
            let variant = try await driver.detect()
            guard variant.isLVariant else { throw SweepError.needsLVariant(variant) }
            try await driver.bringUp(profile: openLoop)
            // A device with no acceleration source is refused before anything is driven
            // (the bring-up took time, so a source has samples by now).
            guard device.acceleration() != nil else { throw SweepError.noAcceleration(device.summary) }
            try await driver.startRealTimePlayback(unsigned: false)
            for (i, code) in codes.enumerated() {
                let f = frequency(code: code)
                progress(i, codes.count, f)
                let clamp = DRV2605Formulas.lraOpenLoopClampCode(rmsVolts: profile.ratedVoltage, frequencyHz: f)
                try await driver.writeRaw(.overdriveClamp, [clamp])
                var period = OpenLoopLRAPeriodRegister(rawValue: 0)
                period.period = code
                try await driver.write(period)
                try await driver.setRealTimeAmplitude(signed: rtp)
                try await driver.wait(microseconds: options.settleMicroseconds)
                device.clearAcceleration()
                try await driver.wait(microseconds: options.windowMicroseconds)
                // Each frequency is a drive of its own: the board stops a drive longer than
                // its limit (PROTOCOL.md, "Maximum continuous drive": 5 s by default),
                // and a sweep lasts longer than that.
                try await driver.setRealTimeAmplitude(signed: 0)
                guard let trace = device.acceleration() else { throw SweepError.noAcceleration(device.summary) }
                source = trace.source
                provenance = provenance.map { $0.adding(trace.provenance) } ?? trace.provenance
                let volts = DRV2605Formulas.lraOpenLoopVoltage(code: clamp, frequencyHz: f) * Double(rtp) / 127
                let amplitude = FundamentalAmplitude.of(timesMilliseconds: trace.timeMilliseconds, values: trace.accelerationG, frequencyHz: f)
                points.append(.init(frequencyHz: f, accelerationG: amplitude, driveVolts: volts))
            }
            try await stop(driver)
        } catch let error as SweepError {
            try? await stop(driver)
            throw error
        } catch let error as DRV2605Error {
            try? await stop(driver)
            throw .driver(error)
        } catch {
            try? await stop(driver)
            throw .driver(.invalidConfiguration("\(error)"))
        }
        var sweep = FrequencySweep(response: FrequencyResponse(points: points), accelerationSource: source ?? "none", options: options)
        sweep.provenance = provenance
        return sweep
    }

    /// Drive 0, out of RTP, standby.
    static func stop<Bus>(_ driver: DRV2605Driver<Bus>) async throws(DRV2605Error) {
        try await driver.setRealTimeAmplitude(signed: 0)
        try await driver.stopRealTimePlayback()
        try await driver.setStandby(true)
    }
}
