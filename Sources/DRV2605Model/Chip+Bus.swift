import DeviceInterface
import DRV2605

/// The I2C face of the chip: what a master sees, byte for byte.
extension DRV2605Chip {
    /// DRV2605L datasheet §8.4.1.3: "if the EN pin is low the DRV2605L device can
    /// still acknowledge (ACK) during an I2C transaction, however, no read or write is
    /// possible". Powered, it ACKs whatever EN says.
    var acknowledges: Bool { isPresent }

    /// A register write transaction (auto-incrementing). With EN low it is
    /// acknowledged and has no effect.
    ///
    /// Past the map (0x23…0xFF) every byte is acknowledged and dropped: the datasheets
    /// define no refusal of a sub-address, and the chip's register file ignores one it
    /// lacks as it reads one as 0x00 (`i2cRead`); the 8-bit pointer wraps from 0xFF to
    /// 0x00. Every emulation writes through this, and the ELF's bit-level chip
    /// (`Firmware/sim/drv_model.c`) acknowledges such a byte too, so the core, the ELF
    /// and a bit-level bus answer a stray write alike.
    public func i2cWrite(address: UInt8, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        guard address == self.address, acknowledges else { throw .addressNotAcknowledged(address: address) }
        guard enablePin else { return }
        var pointer = register
        for byte in bytes {
            if let reg = RegisterAddress(rawValue: pointer) { hostWrote(reg, byte) }
            pointer &+= 1
        }
    }

    /// A register read transaction (auto-incrementing). With EN low the chip drives
    /// no data: the bus's pull-ups read 0xFF.
    ///
    /// Past the map (0x23…0xFF, after LRA_PERIOD at 0x22, the last register of the
    /// DRV2605/DRV2605L datasheets' register map) the chip still sends a byte for every
    /// one the master clocks: in a read it is the master that acknowledges each byte
    /// (UM10204 §3.1.6), so the target has no way to refuse one. What it sends there is
    /// 0x00, as for a register its variant lacks (`hostRead`). The sub-address pointer
    /// is 8 bits wide and wraps from 0xFF to 0x00, as it does on every path that models
    /// the chip bit by bit (`USBEmulation`'s `I2CTarget`, simavr's `drv_model.c`). The one
    /// rule every emulation reads through: the firmware core's hook, the ELF's
    /// (`HarnessChip`) and the emulated adapters' all call this.
    public func i2cRead(address: UInt8, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        guard address == self.address, acknowledges else { throw .addressNotAcknowledged(address: address) }
        guard count > 0 else { return [] }
        guard enablePin else { return [UInt8](repeating: 0xFF, count: count) }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var pointer = register
        for _ in 0..<count {
            out.append(RegisterAddress(rawValue: pointer).map(hostRead) ?? Self.unmappedRegisterValue)
            pointer &+= 1
        }
        return out
    }

    /// What a read of a sub-address past the register map (or of a register the
    /// variant lacks) returns.
    public static let unmappedRegisterValue: UInt8 = 0x00

    func hostRead(_ reg: RegisterAddress) -> UInt8 {
        guard reg.exists(on: variant) else { return Self.unmappedRegisterValue }
        guard reg == .status else { return peek(reg) }
        // OVER_TEMP / OC_DETECT read set while the fault lasts or since it happened,
        // and clear after a read once the condition is gone.
        refreshFaultBits()
        let value = peek(reg)
        if !faults.contains(.overTemperature) { latchedOverTemperature = false }
        if !faults.contains(.overCurrent) { latchedOverCurrent = false }
        refreshFaultBits()
        return value
    }

    func refreshFaultBits() {
        setStatus {
            $0.overTemperature = latchedOverTemperature || faults.contains(.overTemperature)
            $0.overCurrent = latchedOverCurrent || faults.contains(.overCurrent)
        }
    }

    func hostWrote(_ reg: RegisterAddress, _ byte: UInt8) {
        let mask = reg.writableMask(on: variant)
        guard mask != 0 else { return }
        if resetRemaining > 0 { return }  // the chip is busy resetting
        let old = peek(reg)
        let new = (old & ~mask) | (byte & mask)
        registers[Int(reg.rawValue)] = new

        switch reg {
        case .mode:
            let m = ModeRegister(rawValue: new)
            if m.devReset {
                loadResetValues()
                registers[Int(RegisterAddress.mode.rawValue)] = ModeRegister(rawValue: peek(.mode)).withReset
                resetRemaining = Self.resetMicroseconds
                stopActivity()
                return
            }
            let oldMode = ModeRegister(rawValue: old)
            if m.standby || m.mode != oldMode.mode { stopActivity() }
        case .go:
            let go = GoRegister(rawValue: new).go
            let was = GoRegister(rawValue: old).go
            if standby {
                setGo(false)  // ignored in standby (model decision: reads back 0)
            } else if go && !was {
                startFromGo()
            } else if !go && was {
                stopActivity()
            }
        default:
            break
        }
    }

    func startFromGo() {
        switch mode.mode {
        case .internalTrigger, .externalEdgeTrigger, .externalLevelTrigger: startSequence(setsGo: true)
        case .diagnostics: startDiagnostics()
        case .autoCalibration: startAutoCalibration()
        case .realTimePlayback, .pwmOrAnalogInput, .audioToVibe:
            break  // GO has no function in these modes; the bit just reads back.
        }
    }

    func stopActivity() {
        activity = .idle
        setGo(false)
    }
}

extension ModeRegister {
    var withReset: UInt8 {
        var m = self
        m.devReset = true
        return m.rawValue
    }
}
