import Foundation
import Testing

/// The two wiring mistakes Hardware/boards/ft232h.md ("When diagnose fails") names, modelled
/// at the emulated FT232H's pins (`emulate ft232h --wiring`), met by the built CLI: the
/// message each gives and the advice in it.
@Suite("FT232H wiring mistakes as the CLI reports them", .serialized)
struct FT232HWiringMistakeTests {
    static let hapbridge = EmulatedFT232H.hapbridge

    @Test("SDA not bridged to D2: the chip acknowledges its address on SDA, but the FT232H reads the ACK on D2, so diagnose fails with the address NACK asking whether SDA is on both D1 and D2")
    func sdaNotBridged() throws {
        let log = EmulatedFT232H.scratch("i2c.jsonl")
        defer { try? FileManager.default.removeItem(atPath: log) }
        let run = try EmulatedFT232H.run(
            ["--wiring", "sda-not-bridged", "--log", log], [Self.hapbridge, "diagnose", "--device", "ftdi", "--actuator", "pmd-c10-100"])
        #expect(run.status == 1, "\(run)")
        #expect(
            run.errors.contains("no ACK from I2C address 0x5A (is SDA on both D1 and D2, bridged or by the FT232H's I2C switch?")
                || run.output.contains("no ACK from I2C address 0x5A (is SDA on both D1 and D2, bridged or by the FT232H's I2C switch?"), "\(run)")
        // The chip itself saw its address and acknowledged it: the NACK is the wiring's.
        let text = try String(contentsOfFile: log, encoding: .utf8)
        let first = try #require(text.split(separator: "\n").first.map(String.init), "the chip saw a transaction")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(object["address"] as? Int == 0x5A && object["ack"] as? Bool == true, "\(first)")
    }

    @Test("no pull-ups on SDA or SCL: the lines never rise, the chip sees no transaction, every bit reads 0, and diagnose names STATUS 0x00 and asks for pull-ups")
    func noPullUps() throws {
        let run = try EmulatedFT232H.run(["--wiring", "no-pullups"], [Self.hapbridge, "diagnose", "--device", "ftdi", "--actuator", "pmd-c10-100"])
        #expect(run.status == 1, "\(run)")
        let message = "unknown device: DEVICE_ID 0 (STATUS 0x00): every bit read 0, as when SDA is held low: are there pull-ups on SDA and SCL?"
        #expect(run.errors.contains(message) || run.output.contains(message), "\(run)")
        #expect(run.errors.contains(", 0 I2C transaction(s)"), "the chip never saw SCL rise: \(run)")
    }

    @Test("info and play, through the hosted firmware core, give each mistake's advice too: SDA on both D1 and D2 for a NACK, pull-ups for a bus that reads 0")
    func infoAndPlayGiveTheAdvice() throws {
        let bridged = "is SDA on both D1 and D2, bridged or by the FT232H's I2C switch?"
        let info = try EmulatedFT232H.run(["--wiring", "sda-not-bridged"], [Self.hapbridge, "info", "--device", "ftdi"])
        #expect(info.status == 0 && info.output.contains("chip: none answered at 0x5A (\(bridged)"), "\(info)")
        let play = try EmulatedFT232H.run(["--wiring", "sda-not-bridged"], [Self.hapbridge, "play", "impact.heavy", "--device", "ftdi", "--actuator", "pmd-c10-100"])
        #expect(play.status == 1 && play.errors.contains("no DRV2605 answered at 0x5A on the board's I2C bus (\(bridged)"), "\(play)")
        let low = "every bit read 0, as when SDA is held low: are there pull-ups on SDA and SCL?"
        let lowInfo = try EmulatedFT232H.run(["--wiring", "no-pullups"], [Self.hapbridge, "info", "--device", "ftdi"])
        #expect(lowInfo.status == 0 && lowInfo.output.contains("chip: DEVICE_ID 0 (\(low)"), "\(lowInfo)")
        let lowPlay = try EmulatedFT232H.run(["--wiring", "no-pullups"], [Self.hapbridge, "play", "impact.heavy", "--device", "ftdi", "--actuator", "pmd-c10-100"])
        #expect(lowPlay.status == 1 && lowPlay.errors.contains("unknown chip DEVICE_ID 0: \(low)"), "\(lowPlay)")
    }

    @Test("--wiring ok is the documented wiring: diagnose passes")
    func documentedWiring() throws {
        let run = try EmulatedFT232H.run(["--wiring", "ok"], [Self.hapbridge, "diagnose", "--device", "ftdi", "--actuator", "pmd-c10-100"])
        #expect(run.status == 0 && run.output.contains("diagnostic: PASS"), "\(run)")
    }

    @Test("a --wiring the emulation does not model is refused before COMMAND runs (exit 2), naming the choices")
    func unknownWiring() throws {
        let run = try EmulatedFT232H.run(["--wiring", "swapped"], ["true"])
        #expect(run.status == 2, "\(run)")
        #expect(run.errors.contains("ok") && run.errors.contains("sda-not-bridged") && run.errors.contains("no-pullups"), "\(run)")
    }
}
