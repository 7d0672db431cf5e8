import DRV2605
import Testing

struct RegisterMapTests {
    @Test func bitFieldsReadAndWriteOnlyTheirBits() {
        var raw: UInt8 = 0b1010_1010
        let f = BitField(shift: 4, width: 3)
        #expect(f.mask == 0b0111_0000)
        #expect(f.get(raw) == 0b010)
        f.set(&raw, 0b101)
        #expect(raw == 0b1101_1010)
    }

    @Test func statusDecodesDeviceIDAndFlags() {
        // 0xE0: DEVICE_ID 7 (DRV2605L), no flags. 0x64 (from a DRV2605 register dump): ID 3, FB_STS.
        #expect(DeviceVariant(deviceID: StatusRegister(rawValue: 0xE0).deviceID) == .drv2605L)
        let s = StatusRegister(rawValue: 0x64)
        #expect(DeviceVariant(deviceID: s.deviceID) == .drv2605)
        #expect(s.feedbackStatus && !s.overCurrent && !s.overTemperature && !s.diagnosticFailed)
        #expect(StatusRegister(rawValue: 0x0B).diagnosticFailed && StatusRegister(rawValue: 0x03).overCurrent)
    }

    @Test func resetValuesMatchTheDatasheetPerVariant() {
        #expect(RegisterAddress.mode.resetValue(on: .drv2605L) == 0x40)
        #expect(RegisterAddress.ratedVoltage.resetValue(on: .drv2605L) == 0x3E)
        #expect(RegisterAddress.ratedVoltage.resetValue(on: .drv2605) == 0x3F)
        #expect(RegisterAddress.overdriveClamp.resetValue(on: .drv2605L) == 0x8C)
        #expect(RegisterAddress.overdriveClamp.resetValue(on: .drv2605) == 0x89)
        #expect(RegisterAddress.feedbackControl.resetValue(on: .drv2605L) == 0x36)
        #expect(RegisterAddress.control1.resetValue(on: .drv2605L) == 0x93)
        #expect(!RegisterAddress.openLoopLRAPeriod.exists(on: .drv2605))
    }

    @Test func sequenceEntriesEncodeEffectsWaitsAndEnd() {
        #expect(WaveformSequenceEntry.effect(ROMEffectID(rawValue: 47)).rawValue == 47)
        #expect(WaveformSequenceEntry.wait(units: 10).rawValue == 0x8A)
        #expect(WaveformSequenceEntry(rawValue: 0x8A) == .wait(units: 10))
        #expect(WaveformSequenceEntry(rawValue: 0) == .end)
    }

    @Test func feedbackControlFieldsRoundTrip() {
        var fb = FeedbackControlRegister(rawValue: 0x36)  // reset 0011_0110: ERM, brake code 3 = 4x, loop medium, BEMF gain 2
        #expect(!fb.isLRA && fb.brakeFactor == .x4 && fb.loopGain == .medium && fb.backEMFGain == 2)
        fb.isLRA = true
        fb.brakeFactor = .disabled
        #expect(fb.rawValue == 0xF6)
    }

    @Test func romTableHas123NamedEffects() {
        #expect(ROMEffect.all.count == 123)
        #expect(ROMEffect.named(ROMEffectID(rawValue: 1))?.name == "Strong Click - 100%")
        #expect(ROMEffect.named(ROMEffectID(rawValue: 47))?.name == "Buzz 1 - 100%")
        #expect(ROMEffect.named(ROMEffectID(rawValue: 118))?.name.hasPrefix("Long buzz") == true)
        #expect(ROMEffect.lookup("strong click 100%")?.id.rawValue == 1)
        #expect(ROMEffect.lookup("buzz 1")?.id.rawValue == 47)
        #expect(ROMEffect.lookup("124") == nil)
    }
}
