import DRV2605Model
import MPSSE
import Testing

@testable import USBEmulation

/// The emulated FT232H's command processor on its own (FTDI AN_108), a DRV2605L on its pins.
@Suite("The emulated MPSSE engine")
struct MPSSEEngineTests {
    static func engine() -> MPSSEEngine { MPSSEEngine(target: I2CTarget(chip: DRV2605Chip())) }

    @Test("an opcode AN_108 does not define is answered 0xFA + opcode, and the commands around it still run")
    func badCommandEcho() {
        var e = Self.engine()
        // Read ADBUS (all inputs: pulled-up pins read 1, EN's pull-down 0), 0xAA, 0x00, read again.
        let answer = e.execute([0x81, 0xAA, 0x00, 0x81])
        #expect(answer == [0xEF, 0xFA, 0xAA, 0xFA, 0x00, 0xEF])
        #expect(e.badCommands == 2)
    }

    @Test("a command split across two bulk transfers runs once, when its last byte arrives")
    func splitCommand() {
        var e = Self.engine()
        #expect(e.execute([0x80, 0x13]).isEmpty)
        #expect(e.commandsRun == 0)
        // AD0, AD1, AD4 driven high; the inputs read their pull-ups: every pin 1.
        #expect(e.execute([0x13, 0x81]) == [0xFF])
        #expect(e.commandsRun == 2)
    }

    @Test("loopback on: bytes clocked out on TDI come back on TDO, MSB first")
    func loopback() {
        var e = Self.engine()
        let answer = e.execute([0x84, 0x80, 0x02, 0x03, 0x31, 0x02, 0x00, 0xA5, 0x3C, 0x01])
        #expect(answer == [0xA5, 0x3C, 0x01])
    }

    @Test("idle clocks move the chip's time by the MPSSE clock: 8,000 cycles at 1 MHz are 8 ms")
    func clockTime() {
        var e = Self.engine()
        // Divide-by-5 off, divisor 29: 60 MHz / (2 × 30) = 1 MHz; 0x8F 999: (999 + 1) × 8 cycles.
        _ = e.execute([0x8A, 0x8D, 0x86, 29, 0, 0x8F, 0xE7, 0x03])
        #expect(e.clockCycles == 8_000)
        #expect(e.target.chip.nowMicroseconds == 8_000)
    }

    @Test("EN follows AD4 with its pull-down: an input or low is shutdown, driven high the chip is on")
    func enablePin() {
        var e = Self.engine()
        _ = e.execute([0x80, 0x00, 0x00])
        #expect(!e.target.chip.enablePin)
        _ = e.execute([0x80, 0x10, 0x10])
        #expect(e.target.chip.enablePin)
        e.reset()
        #expect(!e.target.chip.enablePin, "bit mode reset: every pin an input")
    }
}
