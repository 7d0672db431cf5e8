import DeviceInterface
import Actuators
import DRV2605
import DRV2605Model
import Testing

struct RegisterBehaviourTests {
    @Test func everyRegisterStartsAtItsResetValue() throws {
        for variant in [DeviceVariant.drv2605, .drv2605L] {
            let chip = DRV2605Chip(variant: variant)
            for r in RegisterAddress.allCases where r != .status && r != .supplyVoltage {
                #expect(try ModelBench.read(chip, r) == r.resetValue(on: variant), "\(r) on \(variant)")
            }
            #expect(StatusRegister(rawValue: try ModelBench.read(chip, .status)).deviceID == variant.deviceID)
        }
    }

    @Test func readOnlyRegistersIgnoreWrites() throws {
        let chip = DRV2605Chip()
        try ModelBench.write(chip, .status, 0xFF)
        try ModelBench.write(chip, .lraPeriod, 0x55)
        #expect(try ModelBench.read(chip, .status) == 0xE0)
        #expect(try ModelBench.read(chip, .lraPeriod) == 0)
        // CONTROL4.OTP_STATUS (bit 2) is read-only.
        try ModelBench.write(chip, .control4, 0xFF)
        #expect(Control4Register(rawValue: try ModelBench.read(chip, .control4)).otpProgrammed == false)
    }

    @Test func lVariantOnlyRegistersReadZeroOnTheDRV2605() throws {
        let chip = DRV2605Chip(variant: .drv2605)
        try ModelBench.write(chip, .openLoopLRAPeriod, 0x40)
        #expect(try ModelBench.read(chip, .openLoopLRAPeriod) == 0)
    }

    @Test func multiByteWritesAutoIncrement() throws {
        let chip = DRV2605Chip()
        try ModelBench.write(chip, .waveformSequence1, 1, 2, 3)
        #expect(chip.peek(.waveformSequence2) == 2 && chip.peek(.waveformSequence3) == 3)
        let bytes = try chip.i2cRead(address: 0x5A, register: RegisterAddress.ratedVoltage.rawValue, count: 5)
        #expect(bytes == [0x3E, 0x8C, 0x0C, 0x6C, 0x36])
    }

    @Test("a read running past LRA_PERIOD (0x22) gets 00 for every byte past the map, the pointer wrapping at 0xFF")
    func readingPastTheLastRegisterReadsZero() throws {
        let chip = DRV2605Chip()
        let lra = try chip.i2cRead(address: 0x5A, register: RegisterAddress.lraPeriod.rawValue, count: 1)
        #expect(try chip.i2cRead(address: 0x5A, register: 0x22, count: 4) == lra + [0, 0, 0])
        #expect(try chip.i2cRead(address: 0x5A, register: 0x80, count: 2) == [0, 0])
        let wrapped = try chip.i2cRead(address: 0x5A, register: 0xFF, count: 3)
        #expect(wrapped == [0, chip.peek(.status), chip.peek(.mode)])
    }

    @Test("A write running past LRA_PERIOD (0x22) is acknowledged: the bytes in the map are written, those past it dropped, as the ELF's chip does")
    func writingPastTheLastRegisterIsAcknowledgedAndDropped() throws {
        let chip = DRV2605Chip()
        let status = chip.peek(.status)
        let lraPeriod = chip.peek(.lraPeriod)
        // OL_LRA_PERIOD (writable), VBAT and LRA_PERIOD (read-only), then past the map.
        try chip.i2cWrite(address: 0x5A, register: RegisterAddress.openLoopLRAPeriod.rawValue, bytes: [0x40, 0x11, 0x22, 0x33, 0x44])
        #expect(chip.peek(.openLoopLRAPeriod) == 0x40 && chip.peek(.lraPeriod) == lraPeriod)
        try chip.i2cWrite(address: 0x5A, register: 0x80, bytes: [0x55, 0x66])
        #expect(try chip.i2cRead(address: 0x5A, register: 0x80, count: 2) == [0, 0])
        #expect(chip.peek(.status) == status)
    }

    @Test func devResetSelfClearsAfterTheResetTime() throws {
        let chip = DRV2605Chip()
        try ModelBench.write(chip, .mode, 0x00)
        try ModelBench.write(chip, .ratedVoltage, 0x20)
        try ModelBench.write(chip, .mode, 0x80)
        #expect(ModeRegister(rawValue: try ModelBench.read(chip, .mode)).devReset)
        chip.advance(microseconds: DRV2605Chip.resetMicroseconds)
        let mode = ModeRegister(rawValue: try ModelBench.read(chip, .mode))
        #expect(!mode.devReset && mode.standby)
        #expect(chip.peek(.ratedVoltage) == 0x3E)
    }

    @Test func goIsIgnoredInStandby() throws {
        let chip = DRV2605Chip(profile: try ModelBench.profile("pmd-c10-100"))
        try ModelBench.write(chip, .go, 1)  // MODE reset value has STANDBY set
        #expect(chip.peek(.go) == 0)
        chip.advance(milliseconds: 50)
        #expect(chip.trace.peakG() == 0)
    }

    @Test func clearingGoStopsTheSequencer() throws {
        let chip = try ModelBench.configuredChip("pmd-c10-100")
        try ModelBench.write(chip, .waveformSequence1, 118, 0)  // long buzz
        try ModelBench.write(chip, .go, 1)
        chip.advance(milliseconds: 100)
        #expect(chip.isBusy)
        try ModelBench.write(chip, .go, 0)
        #expect(!chip.isBusy)
        chip.advance(milliseconds: 150)
        #expect(chip.trace.peakG(from: chip.nowMicroseconds - 20_000) < 0.05)
    }

    @Test func emptyLibraryPlaysSilenceAndStillClearsGo() throws {
        let chip = try ModelBench.configuredChip("pmd-c10-100")
        try ModelBench.write(chip, .librarySelection, ROMLibrary.empty.rawValue)
        try ModelBench.write(chip, .waveformSequence1, 1, 0)
        try ModelBench.write(chip, .go, 1)
        chip.advance(milliseconds: 5)
        #expect(chip.peek(.go) == 0)
        #expect(chip.trace.peakG() < 0.01)
    }

    @Test func edgeTriggerStartsTheSequenceOnARisingEdge() throws {
        let chip = try ModelBench.configuredChip("pmd-c10-100")
        try ModelBench.write(chip, .waveformSequence1, 1, 0)
        try ModelBench.write(chip, .mode, OperatingMode.externalEdgeTrigger.rawValue)
        chip.setTriggerPin(true)
        #expect(chip.isBusy)
        chip.advance(milliseconds: 80)
        #expect(!chip.isBusy)
        #expect(chip.trace.peakG() > 0.3)
    }

    @Test func levelTriggerPlaysWhileHighAndStopsWhenLow() throws {
        let chip = try ModelBench.configuredChip("pmd-c10-100")
        try ModelBench.write(chip, .waveformSequence1, 118, 0)
        try ModelBench.write(chip, .mode, OperatingMode.externalLevelTrigger.rawValue)
        chip.setTriggerPin(true)
        chip.advance(milliseconds: 50)
        chip.setTriggerPin(false)
        #expect(!chip.isBusy)
    }

    @Test func pwmInputDrivesInProportionToDuty() throws {
        let chip = try ModelBench.configuredChip("pmd-c10-100")
        try ModelBench.write(chip, .mode, OperatingMode.pwmOrAnalogInput.rawValue)
        chip.setInput(1.0)  // bidirectional (CONTROL2 reset): 100 % duty = full scale
        chip.advance(milliseconds: 200)
        let full = chip.trace.peakG(from: chip.nowMicroseconds - 40_000)
        chip.setInput(0.75)  // = half scale
        chip.advance(milliseconds: 200)
        let half = chip.trace.peakG(from: chip.nowMicroseconds - 40_000)
        #expect(full > 0.5)
        #expect(abs(half / full - 0.5) < 0.1)
    }

    @Test func audioToVibeFollowsTheInputAboveTheThreshold() throws {
        let chip = try ModelBench.configuredChip("pmd-c10-100")
        try ModelBench.write(chip, .mode, OperatingMode.audioToVibe.rawValue)
        chip.setInput(0.05)  // below A2V_MIN_INPUT (0x19 -> 0.18 V)
        chip.advance(milliseconds: 100)
        #expect(chip.trace.peakG() < 0.01)
        chip.setInput(1.8)
        chip.advance(milliseconds: 200)
        #expect(chip.trace.peakG(from: chip.nowMicroseconds - 40_000) > 0.5)
    }

    @Test func highImpedanceOutputsDoNotDrive() throws {
        let chip = try ModelBench.configuredChip("pmd-c10-100")
        try ModelBench.write(chip, .librarySelection, LibrarySelectionRegister(library: .lra, highImpedance: true).rawValue)
        try ModelBench.rtp(chip, 127)
        chip.advance(milliseconds: 100)
        #expect(chip.trace.peakG() < 1e-6)
    }
}

struct RTPFormatTests {
    /// Steady acceleration for one RTP byte on a calibrated ERM, closed loop.
    func steady(_ raw: UInt8, unsigned: Bool, bidirectional: Bool) throws -> Double {
        let chip = try ModelBench.configuredChip("pmd-307-103")
        var c2 = Control2Register(rawValue: chip.peek(.control2))
        c2.bidirectionalInput = bidirectional
        try ModelBench.write(chip, .control2, c2.rawValue)
        var c3 = Control3Register(rawValue: chip.peek(.control3))
        c3.rtpUnsigned = unsigned
        try ModelBench.write(chip, .control3, c3.rawValue)
        try ModelBench.write(chip, .mode, ModeRegister(mode: .realTimePlayback).rawValue)
        try ModelBench.write(chip, .rtpInput, raw)
        chip.advance(milliseconds: 400)
        return chip.trace.peakG(from: chip.nowMicroseconds - 50_000)
    }

    @Test func closedLoopBidirectionalPutsZeroAtMidScale() throws {
        let full = try steady(0x7F, unsigned: false, bidirectional: true)
        #expect(try steady(0x00, unsigned: false, bidirectional: true) < 0.01)
        #expect(try steady(0x81, unsigned: false, bidirectional: true) < 0.01)  // below mid-scale: no drive
        #expect(try steady(0x80, unsigned: true, bidirectional: true) < 0.01)
        #expect(abs(try steady(0xFF, unsigned: true, bidirectional: true) - full) < 0.05 * full)
    }

    @Test func closedLoopUnidirectionalSpreadsTheWholeRange() throws {
        // Signed 0x00 is mid-range: half speed, a quarter of the g (ERM: g ~ speed^2).
        let full = try steady(0x7F, unsigned: false, bidirectional: false)
        let mid = try steady(0x00, unsigned: false, bidirectional: false)
        #expect(abs(mid / full - 0.25) < 0.06)
        #expect(try steady(0x81, unsigned: false, bidirectional: false) < 0.01)
    }
}
