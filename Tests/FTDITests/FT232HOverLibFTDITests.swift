import Foundation
import Testing

/// The product's FT232H path — libftdi, `FT232HI2CBus` (MPSSE I2C), the DRV2605 driver —
/// against `hapbridge emulate ft232h`, through the ftdi-probe as COMMAND.
@Suite("FT232H over libftdi on the emulation", .serialized)
struct FT232HOverLibFTDITests {
    @Test("bring-up over MPSSE I2C reads STATUS with DEVICE_ID 7 (a DRV2605L) and configures the chip")
    func bringUp() throws {
        let run = try EmulatedFT232H.probe(["bringup"])
        #expect(run.status == 0, "\(run)")
        #expect(run.record("open")["divisor"] == "49", "400 kHz with three-phase clocking: 60 MHz / (2 × 1.5 × 400 kHz) − 1")
        #expect(run.record("detect")["variant"] == "DRV2605L", "\(run)")
        #expect(run.record("detect")["status"] == "0xE0", "\(run)")
        #expect(run.record("bringup")["ok"] == "1", "\(run)")
        #expect(run.errors.contains("hapbridge emulate: ft232h:"), "the summary line")
    }

    @Test("at 100 kHz (divisor 199) the chip is brought up the same way, and the latency timer reads back 1 ms")
    func standardMode() throws {
        let run = try EmulatedFT232H.probe(["--scl", "100000", "bringup"])
        #expect(run.status == 0, "\(run)")
        #expect(run.record("open")["divisor"] == "199", "\(run)")
        #expect(run.record("open")["latency"] == "1", "SIO_SET_LATENCY_TIMER then SIO_GET_LATENCY_TIMER: \(run)")
        #expect(run.record("detect")["variant"] == "DRV2605L", "\(run)")
    }

    @Test("EN (AD4) driven low puts the chip in shutdown: it still ACKs, reads 0xFF, and the driver says EN is low")
    func enableLow() throws {
        let run = try EmulatedFT232H.probe(["en-low"])
        #expect(run.status == 0, "\(run)")
        #expect(run.line("en-low")?.contains("EN is low") == true, "\(run)")
    }

    @Test("a register written over MPSSE reads back the value written")
    func writeReadBack() throws {
        let run = try EmulatedFT232H.probe(["write-read", "16", "5A"])
        #expect(run.status == 0, "\(run)")
        #expect(run.record("readback")["read"] == "0x5A", "\(run)")
    }

    @Test("three register writes batched in one USB transfer all reach the chip")
    func batchedWrites() throws {
        let run = try EmulatedFT232H.probe(["batch"])
        #expect(run.status == 0, "\(run)")
        #expect(run.record("batch")["read"] == "0x3E,0x8C,0x40", "\(run)")
    }

    @Test("the I2C writes the emulated chip saw, bit by bit, are exactly the driver's register writes, in order")
    func chipSawDriverWrites() throws {
        let log = EmulatedFT232H.scratch("i2c.jsonl")
        defer { try? FileManager.default.removeItem(atPath: log) }
        let run = try EmulatedFT232H.probe(["bringup"], options: ["--log", log])
        #expect(run.status == 0, "\(run)")
        let driverWrites = run.records("write").map { $0["bytes"] ?? "" }
        #expect(driverWrites.count >= 5, "bring-up writes MODE, RATED_VOLTAGE..., FEEDBACK_CONTROL...: \(run)")
        // The chip's log: every transaction; a read's register pointer is a one-byte
        // write of its own, so the driver's writes are the writes with data after it.
        let text = try String(contentsOfFile: log, encoding: .utf8)
        var chipWrites: [String] = []
        for line in text.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let bytes = try #require(object["bytes"] as? [Int])
            #expect(object["ack"] as? Bool == true, "every address byte acknowledged: \(line)")
            if object["read"] as? Bool == false && bytes.count >= 2 { chipWrites.append(bytes.map(String.init).joined(separator: ",")) }
        }
        #expect(chipWrites == driverWrites)
    }

    @Test("no chip on the pins: the address NACK is the driver's typed error naming 0x5A")
    func chipAbsent() throws {
        let run = try EmulatedFT232H.probe(["bringup"], options: ["--no-chip"])
        #expect(run.status == 1, "\(run)")
        let error = run.record("error")
        #expect(error["step"] == "bringup")
        #expect(run.line("error")?.contains("no ACK from I2C address 0x5A") == true, "\(run)")
    }

    @Test("the hosted core's port with its answer reader: a write returns before its ACK bits, and its NACK is reported once, by the next call, after that call's own answer is in")
    func pipelinedWriteReportsItsNACKAtTheNextCall() throws {
        let run = try EmulatedFT232H.probe(["hosted-nack"])
        #expect(run.status == 0, "\(run)")
        // The write to an absent address is handed over; its NACK is not known yet.
        #expect(run.record("absent-write")["result"] == "ack", "\(run)")
        // The read waits for every answer before its own, so the NACK is known by then
        // and reported in its place (the core latches an I2C fault).
        #expect(run.record("next-read")["result"] == "nack", "\(run)")
        // Reported once: the bus works on.
        #expect(run.record("then-write")["result"] == "ack", "\(run)")
        #expect(run.record("then-read")["result"] == "ack", "\(run)")
        #expect(run.record("then-read")["bytes"] == "0xE0", "STATUS: DEVICE_ID 7, no faults: \(run)")
    }

    @Test("an opcode MPSSE lacks comes back as the bad-command echo FA + opcode and is named in the error")
    func badCommand() throws {
        let run = try EmulatedFT232H.probe(["bad-command"])
        #expect(run.status == 0, "\(run)")
        #expect(run.record("bad-command")["caught"] == "1", "\(run)")
        #expect(run.line("bad-command")?.contains("rejected MPSSE command 0x00 (bad-command echo FA 00)") == true, "\(run)")
    }

    @Test("an answer without a send-immediate is not lost: the FT232H sends it when its latency timer runs out")
    func answerWithoutSendImmediate() throws {
        let run = try EmulatedFT232H.probe(["no-flush"])
        #expect(run.status == 0, "\(run)")
        // ADBUS after set-up: SCL and SDA released (pulled up), EN driven high, the rest pulled up.
        #expect(run.record("no-flush")["answer"] == "0xFF", "\(run)")
    }

    @Test("a wait is timed by the FT232H's clock: 250 ms of idle MPSSE clocks move the chip's time on at least 250 ms")
    func waitFollowsMPSSEClock() throws {
        let run = try EmulatedFT232H.probe(["wait", "250000"])
        #expect(run.status == 0, "\(run)")
        // 600 kHz TCK (three-phase off for idle clocks) × 0.25 s. The chip's own time runs
        // on between transfers too (the host's, beyond what was clocked), so it is at
        // least the clocked 0.250 s, by however long the host took between transfers.
        let summary = try #require(run.errors.split(separator: "\n").first { $0.contains(" clock cycle(s) (") }, "\(run)")
        #expect(summary.contains(" 150000 clock cycle(s) ("), "\(run)")
        let after = summary.range(of: " clock cycle(s) (").map { summary[$0.upperBound...] }
        let chipSeconds = after.flatMap { Double($0.prefix { $0 != " " }) }
        #expect((chipSeconds ?? 0) >= 0.250, "\(summary)")
    }

    @Test("unplugged (SIGUSR1 to the emulation) the next transaction fails with libftdi's words; replugged (SIGUSR2) the FT232H opens again and the chip answers")
    func unplugReplug() throws {
        let run = try EmulatedFT232H.probe(["unplug"])
        #expect(run.status == 0, "\(run)")
        #expect(run.record("before")["variant"] == "DRV2605L", "\(run)")
        #expect(run.line("unplugged")?.contains("I2C adapter failure: ftdi_") == true, "\(run)")
        #expect(run.record("replugged")["variant"] == "DRV2605L", "\(run)")
        #expect(run.errors.contains("ft232h unplugged") && run.errors.contains("ft232h plugged in again"), "\(run)")
        #expect(run.errors.contains("plugged in 2 times"), "\(run)")
    }

    @Test("the actuator diagnostic passes on the emulated chip over libftdi")
    func diagnose() throws {
        let run = try EmulatedFT232H.probe(["diagnose"])
        #expect(run.status == 0, "\(run)")
        #expect(run.record("diagnose")["passed"] == "1", "\(run)")
    }

    @Test("auto-calibration passes on the emulated chip over libftdi, in the MPSSE clock's time")
    func calibrate() throws {
        let run = try EmulatedFT232H.probe(["calibrate"])
        #expect(run.status == 0, "\(run)")
        #expect(run.record("calibrate")["passed"] == "1", "\(run)")
    }
}
