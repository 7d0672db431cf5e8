import DeviceInterface
import Foundation

/// A behavioural ST LIS3DH accelerometer (datasheet DocID17530 Rev 2), register-accurate
/// for what the firmware uses, sampling an acceleration it is handed (the actuator
/// physics, on the sled it is mounted to) at its output data rate in virtual time.
///
/// Facts modelled, with their datasheet section:
/// - §6.1.1: address 0011 00x (0x18 with SA0 low, 0x19 high); a sub-address with bit 7
///   set auto-increments, without it every byte is of the same register.
/// - §8.6 WHO_AM_I (0x0F) = 0x33.
/// - §8.8 CTRL_REG1 (0x20): ODR[3:0] bits 7:4 (Table 31: 0 power-down, 1 Hz, 10, 25, 50,
///   100, 200, 400, 8 = 1.6 kHz low-power only, 9 = 1.344 kHz, 5.376 kHz in low-power),
///   LPen bit 3, Zen/Yen/Xen bits 2:0. Reset value 0x07.
/// - §8.11 CTRL_REG4 (0x23): BDU bit 7, FS[1:0] bits 5:4 (±2/4/8/16 g), HR bit 3.
/// - §3.2.1 Table 10 and §2.1 Table 4: resolution 12 bits with HR, 8 with LPen, else 10;
///   sensitivity in mg/digit (HR 1/2/4/12, normal 4/8/16/48, low-power 16/32/64/192);
///   the value is two's complement, left-justified in 16 bits (§8.16 OUT_X_L..OUT_Z_H).
/// - §8.12 CTRL_REG5 (0x24) FIFO_EN bit 6; §5.1 and §8.19 FIFO_CTRL_REG (0x2E) FM[1:0]
///   bits 7:6 (bypass, FIFO, stream, stream-to-FIFO), 32 levels; §8.20 FIFO_SRC_REG
///   (0x2F, Table 52): WTM bit 7; OVRN_FIFO bit 6, "set high when FIFO buffer is full;
///   this means that the FIFO buffer contains 32 unread samples. At the following ODR a
///   new sample set replaces the oldest FIFO value. The OVRN bit is set to 0 when the
///   first sample set has been read"; EMPTY bit 5; FSS[4:0] the unread count. (Section
///   numbers are Rev 2's, December 2016, which added CTRL_REG0 as §8.6.)
/// - AN3308 (the LIS3DH application note): reading the FIFO with auto-increment from
///   0x28, the address rolls back from 0x2D to 0x28, one sample per 6 bytes.
///
/// - §3.1.2 and Table 4: the zero-g level offset (TyOff), what an axis reads with no
///   acceleration on it, ±40 mg typical at ±2 g: each axis reads its own `zeroGOffsetG`
///   on top of what it senses (by default one sensor of that population, below).
///
/// Model decisions (the datasheet is silent): FSS reads 31 with all 32 levels full (its
/// five bits cannot say 32; OVRN_FIFO does);
/// noise is white, Gaussian, at 220 µg/√Hz (ST's figure for this sensing element in its
/// LIS2DH12 datasheet, Table 4; the LIS3DH's own datasheet gives none) over a bandwidth
/// of ODR/2; the rate is exactly nominal; samples start one period after the ODR write;
/// stream-to-FIFO behaves as stream (no interrupt pins here).
///
/// Not `Sendable`: one owner (a simulated board, the ELF harness's host chip) advances it.
public final class LIS3DHChip {
    public static let whoAmIValue: UInt8 = 0x33
    public static let defaultAddress: UInt8 = 0x18
    public static let fifoDepth = 32
    /// Noise density, g/√Hz (model decision above).
    public static let noiseDensityGPerRootHz = 220e-6
    /// The zero-g levels of the sensor the simulated boards carry, X, Y, Z in g: one
    /// part of the population whose spread Table 4 gives as ±40 mg (TyOff), so that
    /// everything reading a simulated sensor meets an offset as it would on a bench.
    public static let defaultZeroGOffsetG = SIMD3<Double>(0.036, -0.018, 0.024)

    public enum Register: UInt8 {
        case whoAmI = 0x0F, ctrlReg1 = 0x20, ctrlReg4 = 0x23, ctrlReg5 = 0x24
        case outXL = 0x28, outZH = 0x2D, fifoCtrl = 0x2E, fifoSource = 0x2F
    }

    /// The sensor's axis the actuator's motion lies along (0 X, 1 Y, 2 Z), and the one
    /// gravity lies along (the sled flat on the bench: Z reads +1 g), or nil for none.
    public struct Mounting: Sendable, Equatable {
        public var actuatorAxis: Int
        public var gravityAxis: Int?
        public init(actuatorAxis: Int = 0, gravityAxis: Int? = 2) {
            self.actuatorAxis = actuatorAxis
            self.gravityAxis = gravityAxis
        }
    }

    public let address: UInt8
    public let mounting: Mounting
    /// What each axis (X, Y, Z) reads with no acceleration on it, g (TyOff).
    public let zeroGOffsetG: SIMD3<Double>
    /// false: nothing answers at the address.
    public var isPresent = true
    public private(set) var nowMicroseconds: UInt64 = 0

    var registers = [UInt8](repeating: 0, count: 0x40)
    /// FIFO levels, oldest first: X, Y, Z as the output registers hold them.
    var fifo: [[UInt16]] = []
    /// The last sample taken (what bypass mode's output registers hold).
    var latest: [UInt16] = [0, 0, 0]
    /// Samples a full FIFO in stream mode replaced before they were read (lost).
    public private(set) var replacedSamples = 0
    /// When the sampling grid started (ns) and how many samples it has taken.
    var gridStartNanoseconds: UInt64 = 0
    var taken: UInt64 = 0
    var random: SplitMix64
    /// The noise generator's seed unless one is given ("LIS3DH" in ASCII): every run
    /// with it draws the same noise; another seed, other noise of the same density.
    public static let defaultNoiseSeed: UInt64 = 0x4C49_5333_4448
    /// The register the last byte-wise read byte came from (`i2cReadByte`).
    var bytePointer: UInt8 = 0

    public init(
        address: UInt8 = LIS3DHChip.defaultAddress, mounting: Mounting = Mounting(),
        zeroGOffsetG: SIMD3<Double> = LIS3DHChip.defaultZeroGOffsetG, seed: UInt64 = LIS3DHChip.defaultNoiseSeed
    ) {
        self.address = address
        self.mounting = mounting
        self.zeroGOffsetG = zeroGOffsetG
        random = SplitMix64(seed: seed)
        registers[Int(Register.whoAmI.rawValue)] = Self.whoAmIValue
        registers[Int(Register.ctrlReg1.rawValue)] = 0x07
    }

    // MARK: configuration as the registers say

    var odrCode: UInt8 { registers[Int(Register.ctrlReg1.rawValue)] >> 4 }
    var lowPower: Bool { registers[Int(Register.ctrlReg1.rawValue)] & 0x08 != 0 }
    var highResolution: Bool { registers[Int(Register.ctrlReg4.rawValue)] & 0x08 != 0 }
    public var fullScaleCode: Int { Int(registers[Int(Register.ctrlReg4.rawValue)] >> 4) & 0x03 }
    var fifoEnabled: Bool { registers[Int(Register.ctrlReg5.rawValue)] & 0x40 != 0 }
    var fifoMode: UInt8 { registers[Int(Register.fifoCtrl.rawValue)] >> 6 }

    /// The sample period in ns; nil powered down (or an undefined code).
    public var periodNanoseconds: UInt64? {
        switch odrCode {
        case 1: 1_000_000_000
        case 2: 100_000_000
        case 3: 40_000_000
        case 4: 20_000_000
        case 5: 10_000_000
        case 6: 5_000_000
        case 7: 2_500_000
        case 8: lowPower ? 625_000 : nil  // 1.6 kHz exists in low-power mode only
        case 9: lowPower ? 186_012 : 744_048  // 5.376 kHz low-power, else 1.344 kHz
        default: nil
        }
    }

    /// Output resolution in bits (Table 10).
    public var resolutionBits: Int { lowPower ? 8 : highResolution ? 12 : 10 }

    /// Sensitivity in g per count at the current range and resolution (Table 4).
    public var gPerCount: Double {
        let mg: [Double] =
            switch resolutionBits {
            case 12: [1, 2, 4, 12]
            case 10: [4, 8, 16, 48]
            default: [16, 32, 64, 192]
            }
        return mg[fullScaleCode] / 1000
    }

    /// The RMS noise a sample carries, g: the density over ODR/2.
    public var noiseRMSG: Double {
        guard let p = periodNanoseconds else { return 0 }
        return Self.noiseDensityGPerRootHz * (1e9 / Double(p) / 2).squareRoot()
    }

    /// When the next sample is taken (µs, rounded up); nil powered down.
    public var nextSampleMicroseconds: UInt64? {
        guard let p = periodNanoseconds else { return nil }
        let ns = gridStartNanoseconds + (taken + 1) * p
        return (ns + 999) / 1000
    }

    // MARK: time

    /// Brings the sensor to `microseconds`, taking every sample due on the way from
    /// `acceleration(atMicroseconds)` (g along the actuator's axis): the owner brings
    /// the physics to that moment and answers with it.
    public func advance(toMicroseconds t: UInt64, acceleration: (UInt64) -> Double) {
        while let next = nextSampleMicroseconds, next <= t {
            nowMicroseconds = max(nowMicroseconds, next)
            take(actuatorG: acceleration(next))
        }
        nowMicroseconds = max(nowMicroseconds, t)
    }

    func take(actuatorG: Double) {
        taken += 1
        var sample: [UInt16] = [0, 0, 0]
        for axis in 0..<3 {
            var g = random.gaussian() * noiseRMSG + zeroGOffsetG[axis]
            if axis == mounting.actuatorAxis { g += actuatorG }
            if axis == mounting.gravityAxis { g += 1 }
            sample[axis] = encode(g)
        }
        latest = sample
        guard fifoEnabled, fifoMode != 0 else { return }
        if fifo.count == Self.fifoDepth {
            if fifoMode == 1 { return }  // FIFO mode: stops collecting when full (§5.1.2)
            fifo.removeFirst()  // stream: the oldest is replaced (§5.1.3)
            replacedSamples += 1
        }
        fifo.append(sample)
    }

    /// g → the output register's 16 bits: counts at the sensitivity, clamped to the
    /// resolution's range, left-justified.
    func encode(_ g: Double) -> UInt16 {
        let bits = resolutionBits
        let limit = Double(1 << (bits - 1))
        let counts = max(-limit, min(limit - 1, (g / gPerCount).rounded()))
        return UInt16(bitPattern: Int16(counts) << Int16(16 - bits))
    }

    /// A register value g would be read back as, in g (the host's conversion).
    public func decode(_ raw: UInt16) -> Double {
        Double(Int16(bitPattern: raw) >> Int16(16 - resolutionBits)) * gPerCount
    }

    // MARK: the bus

    public func i2cWrite(address: UInt8, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        guard address == self.address, isPresent else { throw .addressNotAcknowledged(address: address) }
        var r = register & 0x7F
        for byte in bytes {
            wrote(r, byte)
            if register & 0x80 != 0 { r = (r + 1) & 0x3F }
        }
    }

    public func i2cRead(address: UInt8, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        guard address == self.address, isPresent else { throw .addressNotAcknowledged(address: address) }
        var r = register & 0x7F
        var out: [UInt8] = []
        for _ in 0..<count {
            out.append(read(r))
            if register & 0x80 != 0 { r = pointer(after: r) }
        }
        return out
    }

    /// One byte of a read as a bus clocks it: the `index`th byte since the sub-address
    /// `subAddress` was written (the firmware ELF's harness forwards reads byte by byte,
    /// `HarnessChip`). The sensor moves its own pointer between bytes, as `i2cRead` does.
    public func i2cReadByte(address: UInt8, subAddress: UInt8, index: Int) throws(I2CError) -> UInt8 {
        guard address == self.address, isPresent else { throw .addressNotAcknowledged(address: address) }
        if index == 0 {
            bytePointer = subAddress & 0x7F
        } else if subAddress & 0x80 != 0 {
            bytePointer = pointer(after: bytePointer)
        }
        return read(bytePointer)
    }

    /// Where an auto-incrementing read goes after register `r`.
    func pointer(after r: UInt8) -> UInt8 {
        if r == Register.outZH.rawValue, fifoEnabled, fifoMode != 0 {
            return Register.outXL.rawValue  // AN3308: the FIFO read rolls back to 0x28
        }
        return (r + 1) & 0x3F
    }

    func wrote(_ r: UInt8, _ value: UInt8) {
        let writable: ClosedRange<UInt8> = 0x1E...0x25
        guard writable.contains(r) || r == Register.fifoCtrl.rawValue || (0x30...0x3F).contains(r) else { return }
        let old = registers[Int(r)]
        registers[Int(r)] = value
        switch Register(rawValue: r) {
        case .ctrlReg1 where old >> 4 != value >> 4:
            // A new rate starts a new sampling grid from now.
            gridStartNanoseconds = nowMicroseconds * 1000
            taken = 0
        case .fifoCtrl where value >> 6 == 0, .ctrlReg5 where value & 0x40 == 0:
            fifo.removeAll()  // bypass resets the FIFO (§5.1.1)
        default:
            break
        }
    }

    func read(_ r: UInt8) -> UInt8 {
        switch r {
        case Register.outXL.rawValue...Register.outZH.rawValue:
            let i = Int(r - Register.outXL.rawValue)
            let fromFIFO = fifoEnabled && fifoMode != 0
            let sample = fromFIFO ? (fifo.first ?? latest) : latest
            let word = sample[i / 2]
            let byte = i % 2 == 0 ? UInt8(word & 0xFF) : UInt8(word >> 8)
            if fromFIFO, r == Register.outZH.rawValue, !fifo.isEmpty {
                fifo.removeFirst()  // the sample is read: its level is free, OVRN_FIFO clear
            }
            return byte
        case Register.fifoSource.rawValue:
            let n = fifo.count
            let threshold = Int(registers[Int(Register.fifoCtrl.rawValue)] & 0x1F)
            return (n > threshold ? 0x80 : 0) | (n == Self.fifoDepth ? 0x40 : 0) | (n == 0 ? 0x20 : 0) | UInt8(min(n, 31))
        default:
            return registers[Int(r)]
        }
    }

    /// Samples waiting in the FIFO.
    public var fifoCount: Int { fifo.count }
}

/// A small deterministic generator (SplitMix64), so a simulated run's noise is the same
/// every time.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Box–Muller: one standard normal draw.
    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-300), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}
