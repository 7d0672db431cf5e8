import DeviceInterface
import Testing

@testable import SensorModel

/// The model against the LIS3DH datasheet (DocID17530 Rev 2): the facts the firmware
/// relies on, quoted where they are pinned.
@Suite struct LIS3DHChipTests {
    /// §8.6: "WHO_AM_I ... 0 0 1 1 0 0 1 1" (0x33); §6.1.1: SAD 001100x.
    @Test("WHO_AM_I reads 0x33 at its address; another address is not acknowledged")
    func whoAmI() throws {
        let chip = LIS3DHChip()
        #expect(try chip.i2cRead(address: 0x18, register: 0x0F, count: 1) == [0x33])
        #expect(throws: I2CError.addressNotAcknowledged(address: 0x19)) { try chip.i2cRead(address: 0x19, register: 0x0F, count: 1) }
    }

    /// §6.1.1: "If the MSb of the SUB field is '1', the SUB (register address) is
    /// automatically increased to allow multiple data read/writes."
    @Test("multi-byte access auto-increments only with bit 7 of the sub-address set")
    func autoIncrement() throws {
        let chip = LIS3DHChip()
        try chip.i2cWrite(address: 0x18, register: 0x20 | 0x80, bytes: [0x57, 0x00, 0x00, 0x88])
        #expect(try chip.i2cRead(address: 0x18, register: 0x20 | 0x80, count: 4) == [0x57, 0x00, 0x00, 0x88])
        #expect(try chip.i2cRead(address: 0x18, register: 0x20, count: 2) == [0x57, 0x57])
    }

    /// Table 31: ODR 9 is 1.344 kHz (normal/HR); Table 4: HR at ±2 g is 1 mg/digit, 12
    /// bits left-justified; §5.1: 32 levels.
    @Test("at 1344 Hz a sample lands every 744.048 µs; 12-bit counts at 1 mg, left-justified")
    func rateAndResolution() throws {
        let chip = LIS3DHChip()
        try configure(chip, odr: 9, fs: 0)
        chip.advance(toMicroseconds: 10_000) { _ in 0.5 }
        #expect(chip.fifoCount == 13)  // 10 ms × 1344 Hz = 13.4
        let bytes = try chip.i2cRead(address: 0x18, register: 0x28 | 0x80, count: 6)
        let x = Int16(bitPattern: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
        #expect(x & 0x0F == 0)  // left-justified 12 bits
        // 0.5 g = 500 mg plus X's zero-g level; noise ~2.6 mg rms.
        #expect(abs(Double(x >> 4) - (500 + 1000 * chip.zeroGOffsetG.x)) <= 10)
        let z = Int16(bitPattern: UInt16(bytes[4]) | UInt16(bytes[5]) << 8)
        #expect(abs(Double(z >> 4) - (1000 + 1000 * chip.zeroGOffsetG.z)) <= 10)  // gravity on Z
        #expect(chip.fifoCount == 12)
    }

    @Test("±16 g high resolution is 12 mg/digit; values beyond the range clamp")
    func rangeAndClamp() throws {
        let chip = LIS3DHChip()
        try configure(chip, odr: 9, fs: 3)
        #expect(chip.gPerCount == 0.012)
        try configure(chip, odr: 9, fs: 0)
        chip.advance(toMicroseconds: 1_000) { _ in 5 }  // 5 g on a ±2 g range
        let bytes = try chip.i2cRead(address: 0x18, register: 0x28 | 0x80, count: 2)
        #expect(Int16(bitPattern: UInt16(bytes[0]) | UInt16(bytes[1]) << 8) >> 4 == 2047)
    }

    /// §8.20 FIFO_SRC_REG (Rev 2, Table 52): OVRN_FIFO "is set high when FIFO buffer is
    /// full; this means that the FIFO buffer contains 32 unread samples. At the following
    /// ODR a new sample set replaces the oldest FIFO value. The OVRN bit is set to 0 when
    /// the first sample set has been read"; EMPTY when all samples are read; §5.1.3 stream
    /// mode replaces the oldest.
    @Test("OVRN_FIFO says full (32 unread), before any is lost; stream mode then replaces the oldest; a read clears it; a burst read drains it")
    func fifoOverrunAndDrain() throws {
        let chip = LIS3DHChip()
        try configure(chip, odr: 9, fs: 0)
        // The 32nd sample lands 32 periods after the rate write: full, none replaced.
        chip.advance(toMicroseconds: 32 * 744 + 100) { _ in 0 }
        let full = try chip.i2cRead(address: 0x18, register: 0x2F, count: 1)[0]
        #expect(full & 0x40 != 0 && full & 0x1F == 31 && chip.replacedSamples == 0)
        _ = try chip.i2cRead(address: 0x18, register: 0x28 | 0x80, count: 6)
        #expect(try chip.i2cRead(address: 0x18, register: 0x2F, count: 1)[0] & 0x7F == 31)  // 31 unread: no longer full
        chip.advance(toMicroseconds: 40_000) { _ in 0 }
        let source = try chip.i2cRead(address: 0x18, register: 0x2F, count: 1)[0]
        #expect(source & 0x40 != 0 && source & 0x1F == 31)
        // 53 taken by 40 ms (a period is 744.048 µs), one read, 32 kept: 20 replaced.
        #expect(chip.replacedSamples == 53 - 1 - 32)
        // AN3308: one burst from 0x28 reads the FIFO sample after sample.
        _ = try chip.i2cRead(address: 0x18, register: 0x28 | 0x80, count: 6 * 32)
        let after = try chip.i2cRead(address: 0x18, register: 0x2F, count: 1)[0]
        #expect(after == 0x20)  // EMPTY, no overrun, FSS 0
    }

    /// §3.1.2: "A sensor in a steady state on a horizontal surface measures 0 g for the
    /// X-axis and 0 g for the Y-axis whereas the Z-axis measures 1 g … A deviation from
    /// ideal value in this case is called Zero-g offset"; Table 4 gives TyOff ±40 mg.
    @Test("at rest each axis reads its zero-g level (within TyOff, ±40 mg), Z on top of 1 g; a sensor made with none reads 0")
    func zeroGLevel() throws {
        func atRest(_ chip: LIS3DHChip) throws -> SIMD3<Double> {
            try configure(chip, odr: 9, fs: 0)
            chip.advance(toMicroseconds: 20_000) { _ in 0 }
            let n = Int(try chip.i2cRead(address: 0x18, register: 0x2F, count: 1)[0] & 0x1F)
            let bytes = try chip.i2cRead(address: 0x18, register: 0x28 | 0x80, count: 6 * n)
            var sum = SIMD3<Double>(0, 0, 0)
            for i in 0..<n {
                for axis in 0..<3 { sum[axis] += chip.decode(UInt16(bytes[6 * i + 2 * axis]) | UInt16(bytes[6 * i + 2 * axis + 1]) << 8) }
            }
            return sum / Double(n)
        }
        let chip = LIS3DHChip()
        #expect((0..<3).allSatisfy { abs(chip.zeroGOffsetG[$0]) <= 0.040 })
        let mean = try atRest(chip)
        // 26 samples: the mean's noise is 5.7 mg / √26 ≈ 1.1 mg.
        #expect(abs(mean.x - chip.zeroGOffsetG.x) < 0.004 && abs(mean.y - chip.zeroGOffsetG.y) < 0.004)
        #expect(abs(mean.z - 1 - chip.zeroGOffsetG.z) < 0.004)
        let ideal = try atRest(LIS3DHChip(zeroGOffsetG: .zero))
        #expect(abs(ideal.x) < 0.004 && abs(ideal.y) < 0.004 && abs(ideal.z - 1) < 0.004)
    }

    /// The noise the model adds is the density over ODR/2: 220 µg/√Hz × √672 ≈ 5.7 mg rms.
    @Test("the noise at 1344 Hz has the rms the noise density gives")
    func noise() throws {
        let chip = LIS3DHChip()
        try configure(chip, odr: 9, fs: 0)
        var values: [Double] = []
        for step in 1...40 {
            chip.advance(toMicroseconds: UInt64(step) * 20_000) { _ in 0 }
            let n = Int(try chip.i2cRead(address: 0x18, register: 0x2F, count: 1)[0] & 0x1F)
            let bytes = try chip.i2cRead(address: 0x18, register: 0x28 | 0x80, count: 6 * n)
            for i in 0..<n { values.append(chip.decode(UInt16(bytes[6 * i]) | UInt16(bytes[6 * i + 1]) << 8)) }
        }
        // The spread about the zero-g level (the mean) is the noise.
        let mean = values.reduce(0, +) / Double(values.count)
        let rms = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
        #expect(values.count > 900)
        #expect(abs(rms - chip.noiseRMSG) < 0.15 * chip.noiseRMSG)
    }

    func configure(_ chip: LIS3DHChip, odr: UInt8, fs: UInt8) throws {
        try chip.i2cWrite(address: 0x18, register: 0x20 | 0x80, bytes: [0x07, 0, 0, 0x80 | fs << 4 | 0x08, 0x40])
        try chip.i2cWrite(address: 0x18, register: 0x2E, bytes: [0x00])
        try chip.i2cWrite(address: 0x18, register: 0x2E, bytes: [0x80])
        try chip.i2cWrite(address: 0x18, register: 0x20, bytes: [odr << 4 | 0x07])
    }
}
