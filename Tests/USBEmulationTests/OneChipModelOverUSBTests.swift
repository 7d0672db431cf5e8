import Foundation
import Testing

/// One chip model behind every backing: under `emulate bridge` the firmware ELF's I2C
/// bus reaches the same behavioural DRV2605 and actuator as the firmware core's
/// (`HarnessChip`), so the bench commands a user runs give the same answers on both.
extension EmulatedBoards {
    @Suite(.enabled(if: Emulate.backings.contains(.elf), "the firmware ELF and sim-harness are not built: make -C Firmware firmware sim"))
    struct OneChipModelOverUSBTests {
        static let hapbridge = Emulate.hapbridge

        /// `sh -c SCRIPT hapbridge` under `emulate bridge` on one backing; "$0" is hapbridge.
        static func script(_ backing: Emulate.Backing, _ script: String) throws -> Emulate.Run {
            try Emulate.bridge(backing, [], ["sh", "-c", script, hapbridge])
        }

        /// What the commands print, with the one figure that is the host's and not the
        /// chip's masked: "GO cleared by the chip after N ms" counts the host's 1 ms
        /// waits between GO polls, and each poll's USB round trip, in real time, adds
        /// to it unseen (13 to 20 ms for the same effect from run to run).
        static func chipAnswers(_ output: String) -> [String] {
            output.split(separator: "\n").map { line in
                line.contains("cleared by the chip after") ? "GO (0x0C) cleared by the chip after N ms" : String(line)
            }
        }

        static func goClearedMilliseconds(_ output: String) -> Double? {
            guard let line = output.split(separator: "\n").first(where: { $0.contains("cleared by the chip after") }) else { return nil }
            let words = line.split(separator: " ")
            return words.firstIndex(of: "ms").flatMap { $0 > 0 ? Double(words[$0 - 1]) : nil }
        }

        @Test("diagnose, calibrate and rom 1 print the same results on the ELF as on the core: PASS, the same calibration, the same resonance")
        func benchCommandsAnswerAlikeOnBothBackings() throws {
            // Each command on a board of its own, its actuator at rest: one after another
            // on the same board, the next starts while the last one's LRA still rings
            // for a host-timed gap (process start-up, in real time), and an
            // auto-calibration then reads a back-EMF a code or two apart run to run.
            let commands = [
                #""$0" diagnose --device usb"#, #""$0" calibrate --device usb --actuator pmd-c10-100 --no-save"#,
                #""$0" rom 1 --device usb --actuator pmd-c10-100"#,
            ]
            for command in commands {
                let core = try Self.script(.core, command)
                let elf = try Self.script(.elf, command)
                #expect(core.status == 0 && elf.status == 0, "core: \(core)\nelf: \(elf)")
                for run in [core, elf] {
                    #expect(run.output.contains("diagnostic: PASS") || run.output.contains("auto-calibration: PASS"), "\(run)")
                    if command.contains("rom") {
                        #expect(run.output.contains("resonance while playing: 178.2 Hz"), "\(run)")
                        // The effect plays for tens of ms on either (a Strong Click), never the 15 s bound.
                        #expect(Self.goClearedMilliseconds(run.output).map { $0 > 0 && $0 <= 100 } == true, "\(run)")
                    }
                }
                // Every register the calibration wrote and read back, every verdict, the
                // ROM effect's resonance: line for line.
                #expect(Self.chipAnswers(elf.output) == Self.chipAnswers(core.output), "\(command)\ncore:\n\(core.output)\nelf:\n\(elf.output)")
            }
        }

        @Test("a fresh chip reads the DRV2605L's reset values on the ELF as on the core (RATED_VOLTAGE 0x3E, OD_CLAMP 0x8C, CONTROL1-3 0x93 0xF5 0xA0)")
        func aFreshChipReadsTheSameRegistersOnBothBackings() throws {
            var registers: [Emulate.Backing: [String: Double]] = [:]
            for backing in [Emulate.Backing.core, .elf] {
                let run = try Self.script(backing, #""$0" info --device usb --json"#)
                #expect(run.status == 0, "\(run)")
                let info = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run)")
                registers[backing] = try #require(info["registers"] as? [String: Double], "\(run)")
            }
            let elf = try #require(registers[.elf])
            #expect(elf == registers[.core])
            #expect(elf["RATED_VOLTAGE"] == 0x3E && elf["OD_CLAMP"] == 0x8C, "\(elf)")
            #expect(elf["CONTROL1"] == 0x93 && elf["CONTROL2"] == 0xF5 && elf["CONTROL3"] == 0xA0, "\(elf)")
        }

        @Test("after calibrate, play drives the LRA in closed loop on the ELF as on the core, to the pattern's end")
        func calibratedPlayRunsClosedLoopOnBothBackings() throws {
            for backing in [Emulate.Backing.core, .elf] {
                let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapbridge-onechip-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: dir) }
                let run = try Self.script(
                    backing,
                    """
                    export XDG_CONFIG_HOME="\(dir.path)"
                    "$0" calibrate --device usb --actuator pmd-c10-100 && "$0" play impact.heavy --device usb
                    """)
                // Played to its end: 0, or 4 where the wall clock of a busy machine made a
                // command late (the late rule; timing is the benchmarks' subject, not this).
                #expect(run.status == 0 || run.status == 4, "\(backing): \(run)")
                #expect(run.output.contains("auto-calibration: PASS") && run.output.contains("drive: closed loop, calibrated"), "\(backing): \(run)")
                #expect(run.output.contains(" 0 rejected"), "\(backing): \(run)")
            }
        }
    }
}
