import Foundation
import Testing

/// A read that runs past the DRV2605's register map answers the same whichever
/// emulation carries it: the firmware core behind `emulate bridge`, the firmware ELF
/// under simavr, and the firmware core hosted for an FT232H whose MPSSE engine clocks
/// the chip bit by bit. The rule is the chip model's (`DRV2605Chip.i2cRead`): the map
/// ends at LRA_PERIOD (0x22, the datasheets' last register), a target cannot refuse a
/// byte the master reads (UM10204 §3.1.6: the master acknowledges in a read), and a
/// sub-address with no register reads 00.
extension EmulatedBoards {
    @Suite
    struct RegisterReadsPastTheMapTests {
        /// `bridge-session-probe ADDRESS REG COUNT` under each emulation that has one:
        /// the product's own path (DeviceCatalog, BridgeLink's untimed I2C_READ).
        static func reads(register: String, count: String) throws -> [String: Emulate.Run] {
            var runs: [String: Emulate.Run] = [:]
            for backing in Emulate.backings {
                runs["bridge \(backing.rawValue)"] = try Emulate.bridge(backing, [], [Emulate.sessionProbe, "usb", register, count])
            }
            runs["ft232h"] = try Emulate.run([Emulate.hapbridge, "emulate", "ft232h", "--", Emulate.sessionProbe, "ftdi", register, count])
            return runs
        }

        @Test("An I2C_READ of 32 bytes from 0x23 (past LRA_PERIOD) reads 32 zero bytes on the core, the ELF and the FT232H")
        func aReadPastTheMapReadsZeroEverywhere() throws {
            for (name, run) in try Self.reads(register: "23", count: "20") {
                #expect(run.status == 0, "\(name): \(run)")
                #expect(run.record("register")["value"] == "0x" + String(repeating: "00", count: 32), "\(name): \(run)")
            }
        }

        @Test("A read from 0x20 across the end of the map gets 0x20…0x22 then 00s, and the same bytes on every emulation")
        func aReadAcrossTheEndOfTheMapAgrees() throws {
            var values: [String: String] = [:]
            for (name, run) in try Self.reads(register: "20", count: "6") {
                #expect(run.status == 0, "\(name): \(run)")
                let value = run.record("register")["value"] ?? ""
                #expect(value.count == 2 + 12 && value.hasSuffix("000000"), "\(name): \(run)")
                values[name] = value
            }
            // At rest after HELLO: LRA_RESONANCE's reset, the actuator not driven.
            #expect(Set(values.values).count == 1, "every emulation the same: \(values)")
        }
    }
}
