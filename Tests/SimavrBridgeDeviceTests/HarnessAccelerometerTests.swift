import Actuators
import SensorModel
import SimavrBridgeDevice
import Testing

/// The Swift end of `sim-harness --accel` on its own (no simavr needed): the harness's
/// "accel" lines reach the LIS3DH model at their simulated moments, a read byte by byte
/// with the sensor moving its own pointer.
@Suite struct HarnessAccelerometerTests {
    func harness() throws -> HarnessChip {
        HarnessChip(load: .actuator(Actuator(profile: try profile())), recordsAcceleration: false, accelerometer: LIS3DHChip.Mounting())
    }

    @Test("with a sensor fitted the harness is told its address, and WHO_AM_I reads 0x33; without one, accel lines are not the chip's to answer")
    func addressAndWhoAmI() throws {
        let c = try harness()
        #expect(c.harnessArguments == ["--chip", "host", "--accel", "18"])
        #expect(c.answer("accel r 100.0000 0f 0") == "accel 33")
        let bare = HarnessChip(load: .open, recordsAcceleration: false)
        #expect(bare.harnessArguments == ["--chip", "host"])
        #expect(bare.answer("accel r 100.0000 0f 0") == nil)
    }

    /// The firmware's FIFO read: sub-address 0x28 with auto-increment (0xA8), 12 bytes.
    /// The sensor's pointer rolls back from OUT_Z_H to OUT_X_L (AN3308), so the second
    /// six bytes are the next sample and two levels are freed, whatever pointer the
    /// harness's own register file would have moved to.
    @Test("a FIFO read forwarded byte by byte takes whole samples: the pointer rolls back from 0x2D to 0x28 and each sample frees its level")
    func fifoReadRollsBack() throws {
        let c = try harness()
        let sensor = try #require(c.accelerometer)
        #expect(c.answer("accel w 1000.0000 a38840") == "")  // CTRL_REG4: BDU, HR, ±2 g; CTRL_REG5: FIFO_EN
        #expect(c.answer("accel w 1000.0000 2e80") == "")  // FIFO_CTRL: stream
        #expect(c.answer("accel w 1000.0000 2097") == "")  // CTRL_REG1: 1344 Hz, XYZ
        c.advance(toSimulationMicroseconds: 1000 + 10 * 744.048 + 1)
        #expect(sensor.fifoCount == 10)
        var bytes: [UInt8] = []
        for i in 0..<12 {
            let reply = try #require(c.answer("accel r 9000.0000 a8 \(i)"))
            bytes.append(try #require(UInt8(reply.dropFirst(6), radix: 16)))
        }
        #expect(sensor.fifoCount == 8)
        // Z reads +1 g on both samples (flat on the bench), X and Y about 0.
        for sample in 0..<2 {
            let z = UInt16(bytes[sample * 6 + 4]) | UInt16(bytes[sample * 6 + 5]) << 8
            #expect(abs(sensor.decode(z) - 1) < 0.05, "sample \(sample): Z \(sensor.decode(z)) g")
        }
    }
}
