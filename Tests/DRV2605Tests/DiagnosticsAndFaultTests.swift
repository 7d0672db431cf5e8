import DeviceInterface
import Actuators
import DRV2605
import DRV2605Model
import Testing

struct DiagnosticsTests {
    @Test func diagnosticsPassWithTheLRAConnected() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        try await bench.driver.bringUp(profile: bench.profile)
        let r = try await bench.driver.runDiagnostics()
        #expect(r.passed)
        #expect(!StatusRegister(rawValue: r.status).diagnosticFailed)
        #expect(abs(r.resonanceHz! - 175) < 2)
        // Acceleration level: the diagnostic drives the actuator briefly.
        #expect(bench.chip.trace.peakG() > 0.1)
    }

    @Test func diagnosticsFailForAnOpenActuator() async throws {
        var bench = try TestBench(profile: "pmd-c10-100", load: .open)
        try await bench.driver.bringUp(profile: bench.profile)
        let r = try await bench.driver.runDiagnostics()
        #expect(!r.passed)
        #expect(StatusRegister(rawValue: bench.chip.peek(.status)).diagnosticFailed)
        #expect(bench.chip.trace.peakG() == 0)
    }

    @Test func diagnosticsFailForAShortedActuatorWithoutTrippingOverCurrent() async throws {
        var bench = try TestBench(profile: "pmd-307-103", load: .shorted)
        try await bench.driver.bringUp(profile: bench.profile)
        let r = try await bench.driver.runDiagnostics()
        #expect(!r.passed)
        #expect(StatusRegister(rawValue: r.status).diagnosticFailed && !StatusRegister(rawValue: r.status).overCurrent)
    }
}

struct FaultTests {
    @Test func chipAbsentIsANackNamingTheRegister() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        bench.chip.isPresent = false
        await #expect(throws: DRV2605Error.bus(.addressNotAcknowledged(address: 0x5A), register: .status)) {
            try await bench.driver.detect()
        }
    }

    /// DRV2605L datasheet §8.4.1.3: "if the EN pin is low the DRV2605L device can still
    /// acknowledge (ACK) during an I2C transaction, however, no read or write is possible".
    @Test("EN low: the chip still acknowledges, its registers read 0xFF, and detect says EN is low")
    func enablePinLowAcknowledgesButReadsNothing() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        bench.chip.setEnablePin(false)
        await #expect(throws: DRV2605Error.shutDown) { try await bench.driver.detect() }
        #expect(String(describing: DRV2605Error.shutDown).contains("EN is low"))
        // A write is acknowledged and lost: the chip comes back from EN with its reset values.
        try bench.chip.i2cWrite(address: 0x5A, register: RegisterAddress.ratedVoltage.rawValue, bytes: [0x12])
        bench.chip.setEnablePin(true)
        #expect(bench.chip.peek(.ratedVoltage) != 0x12)
    }

    @Test func unknownDeviceIDIsReported() async throws {
        // A bus whose device answers STATUS with DEVICE_ID 2 (not a DRV260x).
        final class OtherChipBus: I2CBus {
            func write(address: UInt8, register: UInt8, bytes: [UInt8]) async throws(I2CError) {}
            func read(address: UInt8, register: UInt8, count: Int) async throws(I2CError) -> [UInt8] { Array(repeating: 0x40, count: count) }
            func wait(microseconds: UInt64) async throws(I2CError) {}
        }
        var driver = DRV2605Driver(bus: OtherChipBus())
        await #expect(throws: DRV2605Error.unknownDevice(deviceID: 2, status: 0x40)) { try await driver.detect() }
    }

    @Test func resetThatNeverCompletesTimesOut() async throws {
        final class StuckBus: I2CBus {
            func write(address: UInt8, register: UInt8, bytes: [UInt8]) async throws(I2CError) {}
            func read(address: UInt8, register: UInt8, count: Int) async throws(I2CError) -> [UInt8] { Array(repeating: 0x80, count: count) }
            func wait(microseconds: UInt64) async throws(I2CError) {}
        }
        let driver = DRV2605Driver(bus: StuckBus())
        await #expect(throws: DRV2605Error.resetTimedOut(afterMicroseconds: 10_000)) { try await driver.reset(timeoutMicroseconds: 10_000) }
    }

    @Test func overTemperatureDuringPlaybackIsATypedError() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        try await bench.driver.bringUp(profile: bench.profile)
        try await bench.driver.loadSequence([.effect(ROMEffectID(rawValue: 118))], library: .lra)
        try await bench.driver.go()
        bench.chip.advance(milliseconds: 50)
        bench.chip.inject(.overTemperature)
        await #expect(throws: DRV2605Error.overTemperature(status: 0xE2)) {
            _ = try await bench.driver.waitForGoClear(mode: .internalTrigger, timeoutMicroseconds: 100_000)
        }
        // Register level: GO cleared, OVER_TEMP set; acceleration level: output stopped.
        #expect(bench.chip.peek(.go) == 0)
        let t = bench.chip.nowMicroseconds
        bench.chip.advance(milliseconds: 100)
        #expect(bench.chip.trace.peakG(from: t + 60_000) < 0.05)
        // The flag stays while the fault lasts and clears once it is gone and read.
        bench.chip.clear(.overTemperature)
        _ = try await bench.driver.read(StatusRegister.self)
        #expect(try await bench.driver.checkFaults().overTemperature == false)
    }

    @Test func overCurrentIntoAShortIsATypedError() async throws {
        var bench = try TestBench(profile: "pmd-307-103", load: .shorted)
        try await bench.driver.bringUp(profile: bench.profile)
        try await bench.driver.startRealTimePlayback(unsigned: false)
        try await bench.driver.setRealTimeAmplitude(signed: 100)
        bench.chip.advance(milliseconds: 5)
        await #expect(throws: DRV2605Error.overCurrent(status: 0xE1)) { try await bench.driver.checkFaults() }
    }

    @Test func injectedOverCurrentIsATypedError() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        try await bench.driver.bringUp(profile: bench.profile)
        bench.chip.inject(.overCurrent)
        await #expect(throws: DRV2605Error.overCurrent(status: 0xE1)) { try await bench.driver.checkFaults() }
    }

    @Test func goThatNeverClearsTimesOut() async throws {
        var bench = try TestBench(profile: "pmd-c10-100")
        try await bench.driver.bringUp(profile: bench.profile)
        try await bench.driver.loadSequence([.effect(ROMEffectID(rawValue: 118))], library: .lra)  // a 10 s buzz
        await #expect(throws: DRV2605Error.goTimedOut(mode: .internalTrigger, afterMicroseconds: 50_000)) {
            _ = try await bench.driver.goAndWait(mode: .internalTrigger, timeoutMicroseconds: 50_000)
        }
    }
}
